# A cluster of separate hosts on one machine: each host a network namespace of its own
# with its own address, host name, /etc/hosts and local disk, all on one bridge (in a
# "switch" namespace of its own). Configuration and output directory are shared (same
# paths). Daemons are started as the systemd units start them. Sourced by a test, after
# harness.sh (check, wait_for).
#
#   netns_init BIN ROOT [HOST...]  namespaces, bridge, hosts files, configuration (hosts
#                          default: master node1 node2; the first is the master); the
#                          EXIT trap tears it all down. Exits 77 where namespaces
#                          cannot be made (needs root and `ip netns`).
#   netns_start            mbatchd on the master, sbatchd on every host, wait until all ok
#   on HOST cmd...         runs cmd on HOST (its network, name, hosts file and local disk)
#   start_mbatchd / kill_mbatchd              (kill -9)
#   start_sbatchd HOST [ARGS...] / kill_sbatchd HOST   (ARGS replace --listen/--advertise)
#   cut HOST / restore HOST  pull / plug HOST's cable at the switch
#   netns_shared_fs        (after netns_init) LSB_SHAREDIR on a file server every host
#                          reaches through a FUSE mount of its own; exits 77 without bindfs
#   cut_fs HOST / restore_fs HOST   HOST's link to the file server cut / restored
#   host_addr HOST         HOST's address;  MBD_LOG  the master's mbatchd log
#   job_state ID, state_is ID STATE, submit HOST bsub-args..., hosts_ok
#
# Names come from $$ so that runs side by side do not collide: namespaces
# lsfnt<pid>-<host> and lsfnt<pid>-sw; interfaces live only inside them (eth0 in a
# host, v-<host> in the switch), so no interface name in the root namespace is used.
# Each host's "local disk" is TEST_DIR/hosts/<host>, bind-mounted (in the mount
# namespace `ip netns exec` makes) over TEST_DIR/local, the path lsf.conf names for
# LSB_SHAREDIR and LSF_LOGDIR: one lsf.conf, a different directory on each host, and
# mbatchd's local socket is seen on the master only.

NETNS_TAG="lsfnt$$"
NETNS_SUBNET="10.213.0"
NETNS_HOSTS=""
NETNS_CREATED=""
NETNS_FUSE_PIDS=""
NETNS_FUSE_MOUNTS=""
MBD_PORT=6881
SBD_PORT=6882

netns_skip() {
  echo "skipped: needs root and ip netns ($1)"
  exit 77
}

ns_of() { echo "$NETNS_TAG-$1"; }
host_addr() {
  local i=1 h
  for h in $NETNS_HOSTS; do
    [ "$h" = "$1" ] && { echo "$NETNS_SUBNET.$i"; return 0; }
    i=$((i + 1))
  done
  return 1
}
master_host() { set -- $NETNS_HOSTS; echo "$1"; }

# Runs a command as if on HOST: its network namespace (and so its /etc/hosts), its host
# name, its local disk over TEST_DIR/local. With PIDFILE set, the command's pid is
# written there (it is exec'd: the pid is the daemon's).
in_host() {  # HOST cmd...
  local h="$1" shared_from="" shared_to=""
  shift
  if [ -n "$NETNS_FUSE_PIDS" ]; then
    shared_from="$TEST_DIR/fs/$h"
    shared_to="$TEST_DIR/shared"
  fi
  ip netns exec "$(ns_of "$h")" unshare --uts -- sh -c \
    'hostname "$1" && mount --bind "$2" "$3" && { [ -z "$5" ] || mount --bind "$5" "$6"; } &&
     { [ -z "$4" ] || echo $$ >"$4"; } && shift 6 && exec "$@"' \
    sh "$h" "$TEST_DIR/hosts/$h" "$TEST_DIR/local" "${PIDFILE:-}" "$shared_from" "$shared_to" "$@"
}
on() {  # HOST cmd...
  local h="$1"
  shift
  in_host "$h" env LSF_ENVDIR="$TEST_DIR/conf" PATH="$BIN:/usr/sbin:/usr/bin:/sbin:/bin" "$@"
}

netns_teardown() {
  local ns pids i h m
  # A file server link left cut would hang whatever touches it, rm -rf included.
  [ -n "$NETNS_FUSE_PIDS" ] && kill -CONT $NETNS_FUSE_PIDS 2>/dev/null
  # Every process in our namespaces is one we started (daemons, jobs, supervisors).
  for ns in $NETNS_CREATED; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
  done
  for ns in $NETNS_CREATED; do
    for i in $(seq 1 50); do
      [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
      sleep 0.1
    done
    ip netns del "$ns" 2>/dev/null
    rm -rf "/etc/netns/$ns"
  done
  rmdir /etc/netns 2>/dev/null
  for m in $NETNS_FUSE_MOUNTS; do umount -l "$m" 2>/dev/null; done
  if [ -n "${TEST_DIR:-}" ]; then
    if [ "$FAILURES" = 0 ]; then rm -rf "$TEST_DIR"; else echo "kept $TEST_DIR for inspection"; fi
  fi
}

# What a run killed outright (SIGKILL, a CTest timeout) left behind: namespaces
# lsfnt<pid>-* of a process that is gone, their processes and /etc/netns entries.
netns_remove_stale() {
  local ns pid pids
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^lsfnt[0-9]+-'); do
    pid=${ns#lsfnt}
    pid=${pid%%-*}
    kill -0 "$pid" 2>/dev/null && continue
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    ip netns del "$ns" 2>/dev/null
    rm -rf "/etc/netns/$ns"
  done
}

netns_add() {  # NAME
  ip netns add "$1" 2>/dev/null || return 1
  NETNS_CREATED="$NETNS_CREATED $1"
  ip -n "$1" link set lo up
}

netns_init() {  # BIN ROOT [HOST...]
  BIN="$(cd "$1" && pwd)"
  ROOT="$(cd "$2" && pwd)"
  shift 2
  NETNS_HOSTS="${*:-master node1 node2}"
  [ "$(id -u)" = 0 ] || netns_skip "not root"
  command -v ip >/dev/null || netns_skip "no ip command"
  command -v unshare >/dev/null || netns_skip "no unshare"
  source "$ROOT/scripts/cluster_lib.sh"
  netns_remove_stale
  trap netns_teardown EXIT
  trap 'exit 130' INT TERM HUP
  local sw h a
  sw=$(ns_of sw)
  netns_add "$sw" || netns_skip "ip netns add failed"
  ip -n "$sw" link add br0 type bridge && ip -n "$sw" link set br0 up || netns_skip "cannot make a bridge"
  for h in $NETNS_HOSTS; do
    a=$(host_addr "$h")
    netns_add "$(ns_of "$h")" || netns_skip "ip netns add failed"
    ip link add v-"$h" netns "$sw" type veth peer name eth0 netns "$(ns_of "$h")" || netns_skip "cannot make a veth pair"
    ip -n "$sw" link set v-"$h" master br0 up
    ip -n "$(ns_of "$h")" addr add "$a/24" dev eth0
    ip -n "$(ns_of "$h")" link set eth0 up
  done
  for h in $NETNS_HOSTS; do
    mkdir -p "/etc/netns/$(ns_of "$h")"
    {
      echo "127.0.0.1 localhost"
      for a in $NETNS_HOSTS; do echo "$(host_addr "$a") $a"; done
    } >"/etc/netns/$(ns_of "$h")/hosts"
  done

  TEST_DIR="$(mktemp -d "${TMPDIR:-/tmp}/lsfsched-nt.XXXXXX")"
  cluster_create "$TEST_DIR" "$ROOT/conf-examples/quickstart"
  rm -rf "$TEST_DIR/work" "$TEST_DIR/log"
  mkdir -p "$TEST_DIR/local" "$TEST_DIR/out"
  for h in $NETNS_HOSTS; do mkdir -p "$TEST_DIR/hosts/$h/work" "$TEST_DIR/hosts/$h/log"; done
  # quickstart's hostA hostB hostC are our hosts; the master is found by name.
  set -- $NETNS_HOSTS
  local conf="$TEST_DIR/conf/lsf.conf"
  sed -i -e "s/\bhostA\b/$1/g" -e "s/\bhostB\b/${2:-$1}/g" -e "s/\bhostC\b/${3:-${2:-$1}}/g" \
    "$TEST_DIR"/conf/lsf.cluster.* "$TEST_DIR"/conf/lsbatch/*/configdir/lsb.*
  sed -i -e '/^LSB_SHAREDIR=/d' -e '/^LSF_LOGDIR=/d' -e '/^LSB_MBD_HOST=/d' -e '/^LSF_MASTER_LIST=/d' \
    -e '/^LSB_MBD_PORT=/d' -e '/^LSB_SBD_PORT=/d' "$conf"
  {
    echo "LSB_SHAREDIR=$TEST_DIR/local/work"
    echo "LSF_LOGDIR=$TEST_DIR/local/log"
    echo "LSF_MASTER_LIST=\"$1\""
    # Every host has its own network: the ports of a site.
    echo "LSB_MBD_PORT=$MBD_PORT"
    echo "LSB_SBD_PORT=$SBD_PORT"
  } >>"$conf"
  PARAMS=$(ls "$TEST_DIR"/conf/lsbatch/*/configdir/lsb.params)
  sed -i 's/^SBD_SLEEP_TIME.*/SBD_SLEEP_TIME = 1/' "$PARAMS"
  MBD_LOG="$TEST_DIR/hosts/$1/log/mbatchd.log.$1"
  cd "$TEST_DIR/out"
}

# LSB_SHAREDIR on a file server: TEST_DIR/server, which each host reaches through a
# FUSE mount of its own (bindfs at TEST_DIR/fs/<host>, bound over TEST_DIR/shared in
# the host's namespace). cut_fs stops that host's bindfs: every file operation of the
# host there waits, as on a hard NFS mount whose server cannot be reached, and goes on
# when restore_fs continues it. LSF_LOGDIR stays on each host's local disk.
netns_shared_fs() {
  local h pid
  command -v bindfs >/dev/null || netns_skip "no bindfs"
  [ -e /dev/fuse ] || netns_skip "no /dev/fuse"
  mkdir -p "$TEST_DIR/server" "$TEST_DIR/shared"
  for h in $NETNS_HOSTS; do
    mkdir -p "$TEST_DIR/fs/$h"
    bindfs -o allow_other "$TEST_DIR/server" "$TEST_DIR/fs/$h" 2>/dev/null || netns_skip "cannot mount with bindfs"
    NETNS_FUSE_MOUNTS="$NETNS_FUSE_MOUNTS $TEST_DIR/fs/$h"
    pid=$(pgrep -f -x "bindfs -o allow_other $TEST_DIR/server $TEST_DIR/fs/$h")
    [ -n "$pid" ] || netns_skip "bindfs for $h has no pid"
    NETNS_FUSE_PIDS="$NETNS_FUSE_PIDS $pid"
    printf -v "NETNS_FUSE_PID_$h" '%s' "$pid"
  done
  sed -i "s|^LSB_SHAREDIR=.*|LSB_SHAREDIR=$TEST_DIR/shared/work|" "$TEST_DIR/conf/lsf.conf"
}
fuse_pid() { local v="NETNS_FUSE_PID_$1"; echo "${!v}"; }
cut_fs() { kill -STOP "$(fuse_pid "$1")"; }
restore_fs() { kill -CONT "$(fuse_pid "$1")"; }

# Adds `KEY = VALUE` to lsb.params (before netns_start, or followed by a reconfig).
set_param() {
  sed -i "/^$1[ =]/d; /^End Parameters/d" "$PARAMS"
  printf '%s = %s\nEnd Parameters\n' "$1" "$2" >>"$PARAMS"
}

# As the unit: `mbatchd` (every address, the host name from the system).
start_mbatchd() {
  local m
  m=$(master_host)
  rm -f "$TEST_DIR/mbatchd.pid"
  PIDFILE="$TEST_DIR/mbatchd.pid" in_host "$m" env LSF_ENVDIR="$TEST_DIR/conf" "$BIN/mbatchd" \
    >>"$TEST_DIR/hosts/$m/log/mbatchd.out" 2>&1 &
  wait_for 15 on "$m" lsid
}
kill_mbatchd() {
  local pid
  pid=$(cat "$TEST_DIR/mbatchd.pid")
  kill -9 "$pid" 2>/dev/null
  wait_for 5 bash -c "! kill -0 $pid"
}

# As the unit: `sbatchd --listen 0.0.0.0 --advertise %H`; other ARGS replace those two.
start_sbatchd() {  # HOST [ARGS...]
  local h="$1"
  shift
  [ $# = 0 ] && set -- --listen 0.0.0.0 --advertise "$h"
  rm -f "$TEST_DIR/sbatchd.$h.pid"
  PIDFILE="$TEST_DIR/sbatchd.$h.pid" in_host "$h" env LSF_ENVDIR="$TEST_DIR/conf" "$BIN/sbatchd" "$@" \
    >>"$TEST_DIR/hosts/$h/log/sbatchd.out" 2>&1 &
  wait_for 5 test -s "$TEST_DIR/sbatchd.$h.pid"
}
kill_sbatchd() {  # HOST
  local pid
  pid=$(cat "$TEST_DIR/sbatchd.$1.pid")
  kill -9 "$pid" 2>/dev/null
  wait_for 5 bash -c "! kill -0 $pid"
}

# The cable of HOST pulled out of the switch, and plugged in again.
cut() { ip -n "$(ns_of sw)" link set "v-$1" down; }
restore() { ip -n "$(ns_of sw)" link set "v-$1" up; }

bhosts_on() { on "$(master_host)" bhosts 2>/dev/null; }
hosts_ok() { [ -n "$(bhosts_on | awk 'NR>1')" ] && ! bhosts_on | awk 'NR>1' | grep -qv ' ok '; }
host_status() { bhosts_on | awk -v h="$1" '$1 == h {print $2}'; }
host_status_is() { [ "$(host_status "$1")" = "$2" ]; }

netns_start() {
  local h
  start_mbatchd || { echo "mbatchd did not start:"; cat "$TEST_DIR"/hosts/*/log/mbatchd.out; return 1; }
  for h in $NETNS_HOSTS; do start_sbatchd "$h"; done
  wait_for 30 hosts_ok || { echo "hosts did not come up:"; bhosts_on; return 1; }
}

# Job helpers of harness.sh, through the master.
job_state() { on "$(master_host)" bjobs -a -u all "$1" 2>/dev/null | awk 'NR==2 {print $3}'; }
state_is() { [ "$(job_state "$1")" = "$2" ]; }
job_hosts() { on "$(master_host)" bjobs -a -u all -o "exec_host" -noheader "$1" 2>/dev/null; }
submit() {  # HOST bsub-args...
  local h="$1"
  shift
  on "$h" bsub "$@" | sed -n 's/^Job <\([0-9]*\)> is submitted.*/\1/p'
}
registrations() { grep -c "host $1 registered" "$MBD_LOG" 2>/dev/null; }

netns_done() {
  if [ "$FAILURES" != 0 ]; then
    echo "$FAILURES check(s) failed; daemon logs:"
    local h
    for h in $NETNS_HOSTS; do tail -v -n 30 "$TEST_DIR"/hosts/"$h"/log/*.log.* 2>/dev/null; done
    exit 1
  fi
  exit 0
}
