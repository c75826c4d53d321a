# Start and stop a local cluster: one mbatchd and one sbatchd per host of
# lsf.cluster.<name>, all on 127.0.0.1. Used by scripts/quickstart and the
# integration tests. Sourced, not run.
#
#   cluster_create DIR SRC    copy SRC/conf (an LSF tree) to DIR/conf, point its
#                             work and log directories into DIR, make a cluster key
#   cluster_start DIR BIN     start the daemons (BIN holds mbatchd, sbatchd, the commands)
#   cluster_stop DIR          stop them (jobs' process groups too)
#   cluster_hosts DIR         the hosts of lsf.cluster.<name>
#   cluster_fail_host DIR HOST    every process of HOST killed at once (a power loss)
#   cluster_pause_host DIR HOST   ... stopped (SIGSTOP); cluster_resume_host continues them
#   cluster_revive_host DIR BIN HOST  HOST's sbatchd started again
#
# With master failover (LSF_MASTER_LIST of two hosts or more) every host gets a
# loopback address of its own (127.0.0.2, 127.0.0.3, ...; DIR/addresses), so that each
# candidate's mbatchd listens on the same port on its own address, as on real hosts.

cluster_name_of() {  # DIR
  local f
  f=$(ls "$1"/conf/lsf.cluster.* 2>/dev/null | head -1)
  echo "${f##*/lsf.cluster.}"
}

cluster_hosts() {  # DIR
  local name
  name=$(cluster_name_of "$1")
  awk 'BEGIN{IGNORECASE=1} /^[ \t]*Begin[ \t]+Host/{inside=1; header=1; next}
       /^[ \t]*End[ \t]+Host/{inside=0}
       inside && !/^[ \t]*#/ && NF>0 { if (header) {header=0; next} print $1 }' \
    "$1/conf/lsf.cluster.$name"
}

# The master candidates of lsf.conf's LSF_MASTER_LIST, one per line.
cluster_candidates() {  # DIR
  sed -n 's/^LSF_MASTER_LIST=//p' "$1/conf/lsf.conf" | tail -1 | tr -d '"' | tr ' ' '\n' | sed '/^$/d'
}

cluster_address() {  # DIR HOST
  if [ -f "$1/addresses" ]; then awk -v h="$2" '$1 == h {print $2}' "$1/addresses"; else echo 127.0.0.1; fi
}

# The first candidate, else the first host: where mbatchd starts.
cluster_master_host() {  # DIR
  { cluster_candidates "$1"; cluster_hosts "$1"; } | head -1
}

cluster_create() {  # DIR SRC
  local dir="$1" src="$2"
  mkdir -p "$dir"
  rm -rf "$dir/conf"
  cp -r "$src/conf" "$dir/conf"
  mkdir -p "$dir/work" "$dir/log"
  local conf="$dir/conf/lsf.conf"
  touch "$conf"
  sed -i -e '/^LSB_SHAREDIR=/d' -e '/^LSF_LOGDIR=/d' -e '/^LSB_MBD_PORT=/d' -e '/^LSB_SBD_PORT=/d' \
    -e '/^LSB_MBD_HOST=/d' "$conf"
  {
    echo "LSB_SHAREDIR=$dir/work"
    echo "LSF_LOGDIR=$dir/log"
    echo "LSB_MBD_HOST=127.0.0.1"
    # A local cluster started by root (a fresh machine, CI) runs root's jobs; a site
    # leaves LSF_ROOT_USER unset so that root neither submits nor runs jobs.
    if [ "$(id -u)" -eq 0 ] && ! grep -q '^LSF_ROOT_USER=' "$conf"; then echo "LSF_ROOT_USER=Y"; fi
  } >>"$conf"
  grep -q '^LSF_CONFDIR=' "$conf" || echo "LSF_CONFDIR=." >>"$conf"
  grep -q '^LSB_CONFDIR=' "$conf" || echo "LSB_CONFDIR=lsbatch" >>"$conf"
  rm -f "$dir/addresses"
  if [ "$(cluster_candidates "$dir" | wc -l)" -ge 2 ]; then
    local host n=2
    for host in $(cluster_hosts "$dir"); do
      echo "$host 127.0.0.$n" >>"$dir/addresses"
      n=$((n + 1))
    done
    sed -i '/^LSB_MBD_HOST=/d' "$conf"
    echo "LSB_MBD_HOST=$(cluster_address "$dir" "$(cluster_master_host "$dir")")" >>"$conf"
  fi
  cluster_new_key "$dir/conf"
}

# A fresh cluster key in ENVDIR/lsf.sudoers, readable by its owner only: the daemons
# sign what they send each other with it.
cluster_new_key() {  # ENVDIR
  (
    umask 077
    echo "LSF_EAUTH_KEY=$(head -c 32 /dev/urandom | base64 -w0)" >"$1/lsf.sudoers"
  )
}

# Starts mbatchd on a free port (tries random ports until one binds).
cluster_start_mbatchd() {  # DIR BIN
  local dir="$1" bin="$2" port tries=0
  while [ $tries -lt 20 ]; do
    port=$((20000 + RANDOM % 40000))
    sed -i '/^LSB_MBD_PORT=/d' "$dir/conf/lsf.conf"
    echo "LSB_MBD_PORT=$port" >>"$dir/conf/lsf.conf"
    local master
    master=$(cluster_master_host "$dir")
    LSF_ENVDIR="$dir/conf" "$bin/mbatchd" --host-name "$master" --listen "$(cluster_address "$dir" "$master")" \
      >>"$dir/log/mbatchd.out" 2>&1 &
    echo $! >"$dir/mbatchd.pid"
    local i
    for i in $(seq 1 100); do
      if LSF_ENVDIR="$dir/conf" timeout 5 "$bin/lsid" >/dev/null 2>&1; then return 0; fi
      kill -0 "$(cat "$dir/mbatchd.pid")" 2>/dev/null || break
      sleep 0.05
    done
    kill "$(cat "$dir/mbatchd.pid")" 2>/dev/null
    grep -q "cannot listen" "$dir/log/mbatchd.out" || { cat "$dir/log/mbatchd.out" >&2; return 1; }
    tries=$((tries + 1))
  done
  echo "cluster_start: no free port for mbatchd" >&2
  return 1
}

# Each virtual host's GPUs are those DIR/gpus.HOST describes (none without the file),
# unless CLUSTER_REAL_GPUS=1: then every sbatchd asks NVML (tests/gpu/check_real_gpu.sh).
cluster_start_sbatchd() {  # DIR BIN HOST
  local dir="$1" bin="$2" host="$3"
  local gpus=(--gpu-file "$dir/gpus.$host")
  [ "${CLUSTER_REAL_GPUS:-}" = 1 ] && gpus=()
  LSF_ENVDIR="$dir/conf" "$bin/sbatchd" --host-name "$host" --listen "$(cluster_address "$dir" "$host")" --port 0 \
    --load-file "$dir/load.$host" "${gpus[@]}" >>"$dir/log/sbatchd.$host.out" 2>&1 &
  echo $! >"$dir/sbatchd.$host.pid"
}

# Waits until every host is ok or the timeout (seconds) passes.
cluster_wait_hosts() {  # DIR BIN [TIMEOUT]
  local dir="$1" bin="$2" timeout="${3:-20}" i
  for i in $(seq 1 $((timeout * 10))); do
    if ! LSF_ENVDIR="$dir/conf" "$bin/bhosts" 2>/dev/null | awk 'NR>1' | grep -qv ' ok '; then return 0; fi
    sleep 0.1
  done
  echo "cluster_start: hosts did not come up:" >&2
  LSF_ENVDIR="$dir/conf" "$bin/bhosts" >&2
  return 1
}

cluster_start() {  # DIR BIN
  local dir="$1" bin="$2" host
  cluster_start_mbatchd "$dir" "$bin" || return 1
  for host in $(cluster_hosts "$dir"); do
    touch "$dir/load.$host"
    cluster_start_sbatchd "$dir" "$bin" "$host"
  done
  cat >"$dir/env" <<ENV
export LSF_ENVDIR="$dir/conf"
export PATH="$bin:\$PATH"
ENV
  cluster_wait_hosts "$dir" "$bin"
}

# The processes of one host of the cluster in DIR: its sbatchd and the job supervisors
# it forked (their command line names its load file), an mbatchd started for it
# (--host-name HOST), and its jobs (their process groups, from sbatchd's <job>.run files).
cluster_host_pids() {  # DIR HOST
  local dir="$1" host="$2" pid f
  for pid in $(cluster_pids "$dir"); do
    if { tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qE -- "--load-file $dir/load\.$host( |\$)|--host-name $host( |\$)"; } \
      2>/dev/null; then
      echo "$pid"
    fi
  done
  for f in "$dir"/work/*/sbatchd/"$host"/*.run; do
    [ -f "$f" ] || continue
    pgrep -g "$(awk '$1 == "pid" {print $2; exit}' "$f")" 2>/dev/null || true
  done
}

cluster_fail_host() {  # DIR HOST
  local pids
  pids=$(cluster_host_pids "$1" "$2" | sort -u)
  [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
}
cluster_pause_host() {  # DIR HOST
  local pids
  pids=$(cluster_host_pids "$1" "$2" | sort -u)
  [ -z "$pids" ] || kill -STOP $pids 2>/dev/null || true
}
cluster_resume_host() {  # DIR HOST
  local pids
  pids=$(cluster_host_pids "$1" "$2" | sort -u)
  [ -z "$pids" ] || kill -CONT $pids 2>/dev/null || true
}
cluster_revive_host() {  # DIR BIN HOST
  cluster_start_sbatchd "$1" "$2" "$3"
}

# Every process of the cluster in DIR: its daemons, the job supervisors sbatchd forked
# (they share its command line, which names DIR), and the jobs and what they started
# (sbatchd gives every job LSF_ENVDIR=DIR/conf). Never the caller or its ancestors.
cluster_pids() {  # DIR
  local dir="$1" p pid self=" $$ $BASHPID " up
  up=$$
  while [ "$up" -gt 1 ] 2>/dev/null; do
    self+="$up "
    up=$(awk '{print $4}' "/proc/$up/stat" 2>/dev/null) || break
  done
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    case "$self" in *" $pid "*) continue ;; esac
    # (A process may end while it is looked at: no message for that.)
    if { tr '\0' ' ' <"$p/cmdline" | grep -qF -- "--load-file $dir/load."; } 2>/dev/null ||
      { tr '\0' '\n' <"$p/environ" | grep -qxF "LSF_ENVDIR=$dir/conf"; } 2>/dev/null; then
      echo "$pid"
    fi
  done
}

# Stops daemons with SIGTERM (SIGKILL after 5 s), then kills every process of the
# cluster that is left (jobs, their supervisors), and waits until none is. Safe under
# `set -e`: a process already gone is not an error; returns non-zero only if something
# of the cluster survives SIGKILL for 10 s.
cluster_stop() {  # DIR
  local dir="$1" f pid i left
  for f in "$dir"/sbatchd.*.pid "$dir"/mbatchd.pid; do
    [ -f "$f" ] || continue
    kill "$(cat "$f")" 2>/dev/null || true
  done
  for f in "$dir"/sbatchd.*.pid "$dir"/mbatchd.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
  done
  # Jobs by their process groups (the "pid" line of sbatchd's <job>.run files), then
  # whatever else is left.
  for f in "$dir"/work/*/sbatchd/*/*.run; do
    [ -f "$f" ] || continue
    pid=$(awk '$1 == "pid" {print $2; exit}' "$f")
    [ -n "$pid" ] && kill -9 -- "-$pid" 2>/dev/null || true
  done
  for i in $(seq 1 100); do
    left=$(cluster_pids "$dir")
    [ -z "$left" ] && return 0
    kill -9 $left 2>/dev/null || true
    sleep 0.1
  done
  echo "cluster_stop: still running: $left" >&2
  return 1
}
