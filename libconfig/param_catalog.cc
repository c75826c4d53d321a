#include "libconfig/param_catalog.h"

#include <array>

#include "libconfig/text.h"

namespace lsf::config {
namespace {

constexpr Support S = Support::kSupported;
constexpr Support A = Support::kAccepted;

constexpr std::array kSections{
    SectionSpec{"lsf.shared", "Cluster", true, S, "cluster names (and servers)"},
    SectionSpec{"lsf.shared", "HostType", true, S, "host type names"},
    SectionSpec{"lsf.shared", "HostModel", true, S, "host models with CPU factors"},
    SectionSpec{"lsf.shared", "Resource", true, S, "site resources: Boolean, Numeric, String"},
    SectionSpec{"lsf.shared", "NewIndex", true, A, "legacy external load indices"},
    SectionSpec{"lsf.cluster", "ClusterAdmins", false, S, "LSF administrators"},
    SectionSpec{"lsf.cluster", "ClusterManager", false, S, "legacy name of ClusterAdmins"},
    SectionSpec{"lsf.cluster", "Parameters", false, A, "LIM parameters"},
    SectionSpec{"lsf.cluster", "Host", true, S, "the cluster's hosts"},
    SectionSpec{"lsf.cluster", "ResourceMap", true, S, "where site resources live"},
    SectionSpec{"lsf.cluster", "RemoteClusters", true, S, "MultiCluster peers"},
    SectionSpec{"lsb.params", "Parameters", false, S, "batch parameters"},
    SectionSpec{"lsb.queues", "Queue", false, S, "one queue per section"},
    SectionSpec{"lsb.hosts", "Host", true, S, "batch host limits and thresholds"},
    SectionSpec{"lsb.hosts", "HostGroup", true, S, "host groups"},
    SectionSpec{"lsb.hosts", "HostPartition", false, S, "host-partition fairshare"},
    SectionSpec{"lsb.hosts", "ComputeUnit", true, S, "compute units for cu[]"},
    SectionSpec{"lsb.users", "UserGroup", true, S, "user groups and their shares"},
    SectionSpec{"lsb.users", "User", true, S, "per-user and per-group job limits"},
    SectionSpec{"lsb.resources", "Limit", false, S, "resource allocation limits (both layouts)"},
    SectionSpec{"lsb.resources", "GuaranteedResourcePool", false, S, "slot, host and package guarantees"},
    SectionSpec{"lsb.resources", "HostExport", false, S, "MultiCluster host export"},
    SectionSpec{"lsb.resources", "SharedResourceExport", false, S, "MultiCluster shared-resource export"},
    SectionSpec{"lsb.resources", "ReservationUsage", true, S, "how shared resources are reserved"},
    SectionSpec{"lsb.resources", "ResourceReservation", false, A, "advance-reservation policy"},
    SectionSpec{"lsb.resources", "PowerPolicy", false, A, "power management"},
    SectionSpec{"lsb.serviceclasses", "ServiceClass", false, S, "service classes (SLA)"},
    SectionSpec{"lsb.modules", "PluginModule", true, S, "scheduler modules and their order"},
    SectionSpec{"lsf.task", "RemoteTasks", true, A, "task resource requirements for lsrun"},
    SectionSpec{"lsf.task", "LocalTasks", true, A, "local tasks for lsrun"},
};

constexpr std::array kParams{
    // lsf.conf
    ParamSpec{"lsf.conf", "", "LSF_ENVDIR", S, "directory of lsf.conf"},
    ParamSpec{"lsf.conf", "", "LSF_CONFDIR", S, "directory of lsf.shared and lsf.cluster.<name> (default: LSF_ENVDIR)"},
    ParamSpec{"lsf.conf", "", "LSB_CONFDIR", S, "parent of <cluster>/configdir (default: LSF_CONFDIR/lsbatch)"},
    ParamSpec{"lsf.conf", "", "LSB_SHAREDIR", S, "parent of <cluster>/logdir (event and accounting logs)"},
    ParamSpec{"lsf.conf", "", "LSF_LOGDIR", S, "daemon logs"},
    ParamSpec{"lsf.conf", "", "LSF_SERVERDIR", S, "daemon binaries"},
    ParamSpec{"lsf.conf", "", "LSF_BINDIR", S, "command binaries"},
    ParamSpec{"lsf.conf", "", "LSF_LIBDIR", A, "libraries"},
    ParamSpec{"lsf.conf", "", "LSF_LIM_PORT", S, "LIM port"},
    ParamSpec{"lsf.conf", "", "LSF_RES_PORT", S, "RES port"},
    ParamSpec{"lsf.conf", "", "LSB_MBD_PORT", S, "mbatchd port"},
    ParamSpec{"lsf.conf", "", "LSB_SBD_PORT", S, "sbatchd port"},
    ParamSpec{"lsf.conf", "", "LSB_MBD_HOST", S,
              "address of mbatchd (this project; default: first of LSF_MASTER_LIST)"},
    ParamSpec{"lsf.conf", "", "LSB_MBD_SOCKET", S,
              "mbatchd's local socket (this project; default LSB_SHAREDIR/mbatchd.<port>.sock; none: no socket)"},
    ParamSpec{"lsf.conf", "", "LSB_RPC_TIMEOUT", S, "seconds a command or daemon waits for a reply (this project; 30)"},
    ParamSpec{"lsf.conf", "", "LSF_LOG_MASK", S, "daemon log level"},
    ParamSpec{"lsf.conf", "", "LSF_UNIT_FOR_LIMITS", S, "unit of memory limits without a suffix (default KB)"},
    ParamSpec{"lsf.conf", "", "LSF_MASTER_LIST", S, "master host candidates, in order"},
    ParamSpec{"lsf.conf", "", "LSF_SERVER_HOSTS", A, "servers for client-only hosts"},
    ParamSpec{"lsf.conf", "", "LSF_AUTH", S,
              "none: believe unsigned TCP requests; anything else: sign with LSF_EAUTH_KEY (lsf.sudoers)"},
    ParamSpec{"lsf.conf", "", "LSF_USE_HOSTEQUIV", A, ""},
    ParamSpec{"lsf.conf", "", "LSF_STRIP_DOMAIN", A, ""},
    ParamSpec{"lsf.conf", "", "LSF_TMPDIR", A, ""},
    ParamSpec{"lsf.conf", "", "LSB_SHORT_HOSTLIST", S, "bjobs shows `4*hostA`"},
    ParamSpec{"lsf.conf", "", "LSB_BJOBS_FORMAT", S, "default bjobs -o"},
    ParamSpec{"lsf.conf", "", "LSB_BQUEUES_FORMAT", S, "default bqueues -o"},
    ParamSpec{"lsf.conf", "", "LSB_BHOSTS_FORMAT", S, "default bhosts -o"},
    ParamSpec{"lsf.conf", "", "LSB_JOBID_DISP_LENGTH", S, "width of the JOBID column"},
    ParamSpec{"lsf.conf", "", "LSB_DISPLAY_YEAR", S, "show the year in times"},
    ParamSpec{"lsf.conf", "", "LSB_API_CONNTIMEOUT", S, "command connect timeout (s)"},
    ParamSpec{"lsf.conf", "", "LSB_API_RECVTIMEOUT", S, "command receive timeout (s)"},
    ParamSpec{"lsf.conf", "", "LSB_MAILTO", A, "mail recipient for job mail"},
    ParamSpec{"lsf.conf", "", "LSB_MAILPROG", A, ""},
    ParamSpec{"lsf.conf", "", "LSB_DEBUG", A, ""},
    ParamSpec{"lsf.conf", "", "LSB_MOD_ALL_JOBS", S, "Y: bmod may change a running job's -W and -M"},
    ParamSpec{"lsf.conf", "", "LSB_MAX_PACK_JOBS", S, "bsub -pack: jobs per request (default 300; 0: -pack refused)"},
    ParamSpec{"lsf.conf", "", "LSB_PACK_SKIP_ERROR", S, "Y: bsub -pack goes on past a refused line"},
    ParamSpec{"lsf.conf", "", "LSF_PIM_SLEEPTIME_UPDATE", A, ""},
    ParamSpec{"lsf.conf", "", "LSB_MAX_JOB_DISPATCH_PER_SESSION", A, ""},
    ParamSpec{"lsf.conf", "", "LSB_QUERY_PORT", A, ""},
    ParamSpec{"lsf.conf", "", "LSB_JOB_CPULIMIT", A, ""},
    ParamSpec{"lsf.conf", "", "LSB_JOB_MEMLIMIT", A, ""},
    ParamSpec{"lsf.conf", "", "LSB_MEMLIMIT_ENFORCE", A, ""},
    ParamSpec{"lsf.conf", "", "LSF_NON_PRIVILEGED_PORTS", A, ""},
    ParamSpec{"lsf.conf", "", "LSB_STDOUT_DIRECT", A, ""},
    // lsf.shared
    ParamSpec{"lsf.shared", "Cluster", "CLUSTERNAME", S, "cluster name"},
    ParamSpec{"lsf.shared", "Cluster", "SERVERS", S, "its server hosts"},
    ParamSpec{"lsf.shared", "HostType", "TYPENAME", S, "host type"},
    ParamSpec{"lsf.shared", "HostModel", "MODELNAME", S, "model name"},
    ParamSpec{"lsf.shared", "HostModel", "CPUFACTOR", S, "relative CPU speed"},
    ParamSpec{"lsf.shared", "HostModel", "ARCHITECTURE", S, "architecture strings"},
    ParamSpec{"lsf.shared", "Resource", "RESOURCENAME", S, "name"},
    ParamSpec{"lsf.shared", "Resource", "TYPE", S, "Boolean, Numeric or String"},
    ParamSpec{"lsf.shared", "Resource", "INTERVAL", S, "update interval of a dynamic resource"},
    ParamSpec{"lsf.shared", "Resource", "INCREASING", S, "a larger value means more load"},
    ParamSpec{"lsf.shared", "Resource", "RELEASE", S, "released when the job is suspended"},
    ParamSpec{"lsf.shared", "Resource", "CONSUMABLE", S, "consumed by rusage"},
    ParamSpec{"lsf.shared", "Resource", "DESCRIPTION", S, "text"},
    // lsf.cluster
    ParamSpec{"lsf.cluster", "ClusterAdmins", "ADMINISTRATORS", S, "LSF administrators, primary first"},
    ParamSpec{"lsf.cluster", "ClusterManager", "MANAGER", S, "legacy: LSF administrators"},
    ParamSpec{"lsf.cluster", "Host", "HOSTNAME", S, "host name"},
    ParamSpec{"lsf.cluster", "Host", "MODEL", S, "host model (`!` detects)"},
    ParamSpec{"lsf.cluster", "Host", "TYPE", S, "host type (`!` detects)"},
    ParamSpec{"lsf.cluster", "Host", "SERVER", S, "1 for a batch server, 0 for a client"},
    ParamSpec{"lsf.cluster", "Host", "ND", S, "number of disks"},
    ParamSpec{"lsf.cluster", "Host", "RESOURCES", S, "boolean and string resources"},
    ParamSpec{"lsf.cluster", "Host", "RUNWINDOW", S, "time window"},
    ParamSpec{"lsf.cluster", "Host", "REXPRI", S, "remote execution priority"},
    ParamSpec{"lsf.cluster", "Host", "<load index>", S, "LIM busy threshold"},
    ParamSpec{"lsf.cluster", "ResourceMap", "RESOURCENAME", S, "resource"},
    ParamSpec{"lsf.cluster", "ResourceMap", "LOCATION", S, "`[all]`, `[default]`, `5@[h1 h2]`, ..."},
    ParamSpec{"lsf.cluster", "RemoteClusters", "CLUSTERNAME", S, "peer cluster"},
    ParamSpec{"lsf.cluster", "RemoteClusters", "EQUIV", A, ""},
    ParamSpec{"lsf.cluster", "RemoteClusters", "CACHE_INTERVAL", A, ""},
    ParamSpec{"lsf.cluster", "RemoteClusters", "RECV_FROM", A, ""},
    ParamSpec{"lsf.cluster", "RemoteClusters", "AUTH", A, ""},
    ParamSpec{"lsf.cluster", "Parameters", "EXINTERVAL", A, ""},
    ParamSpec{"lsf.cluster", "Parameters", "HOST_INACTIVITY_LIMIT", A, ""},
    ParamSpec{"lsf.cluster", "Parameters", "MASTER_INACTIVITY_LIMIT", A, ""},
    ParamSpec{"lsf.cluster", "Parameters", "RETRY_LIMIT", A, ""},
    ParamSpec{"lsf.cluster", "Parameters", "PROBE_TIMEOUT", A, ""},
    ParamSpec{"lsf.cluster", "Parameters", "ADJUST_DURATION", A, ""},
    ParamSpec{"lsf.cluster", "Parameters", "ELIM_POLL_INTERVAL", A, ""},
    ParamSpec{"lsf.cluster", "Parameters", "ELIMARGS", A, ""},
    // lsb.params
    ParamSpec{"lsb.params", "Parameters", "DEFAULT_QUEUE", S, "queues tried when bsub has no -q"},
    ParamSpec{"lsb.params", "Parameters", "DEFAULT_PROJECT", S, "project of jobs without -P"},
    ParamSpec{"lsb.params", "Parameters", "MBD_SLEEP_TIME", S, "dispatch turn, seconds (60)"},
    ParamSpec{"lsb.params", "Parameters", "SBD_SLEEP_TIME", S, "sbatchd check interval, seconds (30)"},
    ParamSpec{"lsb.params", "Parameters", "JOB_ACCEPT_INTERVAL", S, "turns a host waits between jobs (1)"},
    ParamSpec{"lsb.params", "Parameters", "RESERVATION_DEPTH", S,
              "jobs that may hold a slot reservation per pass (all); 1 gives EASY-style backfill"},
    ParamSpec{"lsb.params", "Parameters", "RESERVATION_MODEL", S,
              "HOLD (free slots held now, LSF) or PLAN (a planned start for each reserving job; conservative "
              "backfill)"},
    ParamSpec{"lsb.params", "Parameters", "LOCAL_MAX_PREEXEC_RETRY", S,
              "failed pre-execs before the action (unlimited)"},
    ParamSpec{"lsb.params", "Parameters", "LOCAL_MAX_PREEXEC_RETRY_ACTION", S, "SUSPEND (hold, PSUSP) or EXIT"},
    ParamSpec{"lsb.params", "Parameters", "MAX_JOB_NUM", S, "finished jobs before the event log switches (1000)"},
    ParamSpec{"lsb.params", "Parameters", "MAX_JOBID", S, "highest job ID (999999)"},
    ParamSpec{"lsb.params", "Parameters", "MAX_JOB_ARRAY_SIZE", S, "largest array index (1000)"},
    ParamSpec{"lsb.params", "Parameters", "CLEAN_PERIOD", S, "seconds finished jobs stay visible (3600)"},
    ParamSpec{"lsb.params", "Parameters", "MAX_SBD_FAIL", S, "missed contacts before unreach/unavail (3)"},
    ParamSpec{"lsb.params", "Parameters", "PG_SUSP_IT", S, "idle time after which pg is not checked (180 s)"},
    ParamSpec{"lsb.params", "Parameters", "MAX_PEND_JOBS", S, "pending jobs per user"},
    ParamSpec{"lsb.params", "Parameters", "MAX_PEND_SLOTS", S, "pending slots per user"},
    ParamSpec{"lsb.params", "Parameters", "MAX_USER_PRIORITY", S, "bsub -sp range"},
    ParamSpec{"lsb.params", "Parameters", "CPU_TIME_FACTOR", S, "fairshare weight (0.7)"},
    ParamSpec{"lsb.params", "Parameters", "RUN_TIME_FACTOR", S, "fairshare weight (0.7)"},
    ParamSpec{"lsb.params", "Parameters", "RUN_JOB_FACTOR", S, "fairshare weight (3.0)"},
    ParamSpec{"lsb.params", "Parameters", "COMMITTED_RUN_TIME_FACTOR", S, "fairshare weight (0)"},
    ParamSpec{"lsb.params", "Parameters", "FAIRSHARE_ADJUSTMENT_FACTOR", A,
              "fairshare weight (0); no adjustment plug-in"},
    ParamSpec{"lsb.params", "Parameters", "HIST_HOURS", S, "usage decay half-life-like period (5)"},
    ParamSpec{"lsb.params", "Parameters", "ENABLE_HIST_RUN_TIME", S, "count historical run time"},
    ParamSpec{"lsb.params", "Parameters", "ABS_RUNLIMIT", S, "run limits not normalised"},
    ParamSpec{"lsb.params", "Parameters", "JOB_DEP_LAST_SUB", S, "name dependencies use the newest job"},
    ParamSpec{"lsb.params", "Parameters", "PARALLEL_SCHED_BY_SLOT", S, ""},
    ParamSpec{"lsb.params", "Parameters", "MC_RECLAIM_DELAY", S, "minutes between shared-lease recomputations (10)"},
    ParamSpec{"lsb.params", "Parameters", "DEFAULT_HOST_SPEC", S, "host or model that normalises limits"},
    ParamSpec{"lsb.params", "Parameters", "COMPUTE_UNIT_TYPES", S, "compute unit types, finest first"},
    ParamSpec{"lsb.params", "Parameters", "LSB_MANAGER", A, ""},
    ParamSpec{"lsb.params", "Parameters", "JOB_SCHEDULING_INTERVAL", A, ""},
    ParamSpec{"lsb.params", "Parameters", "MAX_SBD_CONNS", A, ""},
    ParamSpec{"lsb.params", "Parameters", "MAX_SCHED_STAY", A, ""},
    ParamSpec{"lsb.params", "Parameters", "MAX_RETRY", A, ""},
    ParamSpec{"lsb.params", "Parameters", "RETRY_INTERVAL", A, ""},
    ParamSpec{"lsb.params", "Parameters", "RUSAGE_UPDATE_RATE", A, ""},
    ParamSpec{"lsb.params", "Parameters", "RUSAGE_UPDATE_PERCENT", A, ""},
    ParamSpec{"lsb.params", "Parameters", "COND_CHECK_TIME", A, ""},
    ParamSpec{"lsb.params", "Parameters", "JOB_TERMINATE_INTERVAL", A, ""},
    ParamSpec{"lsb.params", "Parameters", "JOB_RUN_TIMES", A, ""},
    ParamSpec{"lsb.params", "Parameters", "JOB_SPOOL_DIR", A, ""},
    ParamSpec{"lsb.params", "Parameters", "JOB_PRIORITY_OVER_TIME", A, ""},
    ParamSpec{"lsb.params", "Parameters", "SHARED_RESOURCE_UPDATE_FACTOR", A, ""},
    ParamSpec{"lsb.params", "Parameters", "SCHE_RAW_LOAD", A, ""},
    ParamSpec{"lsb.params", "Parameters", "PRE_EXEC_DELAY", A, ""},
    ParamSpec{"lsb.params", "Parameters", "SLOT_RESOURCE_RESERVE", A, ""},
    ParamSpec{"lsb.params", "Parameters", "MAX_ACCT_ARCHIVE_FILE", A, ""},
    ParamSpec{"lsb.params", "Parameters", "ACCT_ARCHIVE_SIZE", A, ""},
    ParamSpec{"lsb.params", "Parameters", "ACCT_ARCHIVE_AGE", A, ""},
    ParamSpec{"lsb.params", "Parameters", "DISABLE_UACCT_MAP", A, ""},
    ParamSpec{"lsb.params", "Parameters", "DEFAULT_LIMIT_IGNORE_USER_GROUP", A, ""},
    ParamSpec{"lsb.params", "Parameters", "DEFAULT_USER_GROUP", A, ""},
    ParamSpec{"lsb.params", "Parameters", "PREEMPTABLE_RESOURCES", A, ""},
    ParamSpec{"lsb.params", "Parameters", "PREEMPT_FOR", A, ""},
    ParamSpec{"lsb.params", "Parameters", "MAX_CONCURRENT_QUERY", A, ""},
    ParamSpec{"lsb.params", "Parameters", "PEND_REASON_UPDATE_INTERVAL", A, ""},
    ParamSpec{"lsb.params", "Parameters", "EVALUATE_WAIT_CONDITION_TIMEOUT", A, ""},
    ParamSpec{"lsb.params", "Parameters", "ALLOCATION_PLANNER", A, ""},
    ParamSpec{"lsb.params", "Parameters", "JOB_DISPATCH_PACK_SIZE", A, ""},
    ParamSpec{"lsb.params", "Parameters", "MBD_REFRESH_TIME", A, ""},
    ParamSpec{"lsb.params", "Parameters", "NEWJOB_REFRESH", A, ""},
    // lsb.queues
    ParamSpec{"lsb.queues", "Queue", "QUEUE_NAME", S, "required"},
    ParamSpec{"lsb.queues", "Queue", "PRIORITY", S, "larger is scheduled first (1)"},
    ParamSpec{"lsb.queues", "Queue", "DESCRIPTION", S, "text"},
    ParamSpec{"lsb.queues", "Queue", "USERS", S, "who may submit (all)"},
    ParamSpec{"lsb.queues", "Queue", "HOSTS", S, "where jobs may run, with +N preferences (all)"},
    ParamSpec{"lsb.queues", "Queue", "ADMINISTRATORS", S, "queue administrators"},
    ParamSpec{"lsb.queues", "Queue", "RES_REQ", S, "queue resource requirement"},
    ParamSpec{"lsb.queues", "Queue", "QJOB_LIMIT", S, "slots for the whole queue"},
    ParamSpec{"lsb.queues", "Queue", "UJOB_LIMIT", S, "slots per user"},
    ParamSpec{"lsb.queues", "Queue", "PJOB_LIMIT", S, "slots per processor"},
    ParamSpec{"lsb.queues", "Queue", "HJOB_LIMIT", S, "slots per host"},
    ParamSpec{"lsb.queues", "Queue", "RUNLIMIT", S, "[default] max, [hours:]minutes[/host_spec]"},
    ParamSpec{"lsb.queues", "Queue", "CPULIMIT", S, "[default] max, [hours:]minutes[/host_spec]"},
    ParamSpec{"lsb.queues", "Queue", "MEMLIMIT", S, "[default] max, with units"},
    ParamSpec{"lsb.queues", "Queue", "SWAPLIMIT", S, "[default] max, with units"},
    ParamSpec{"lsb.queues", "Queue", "FILELIMIT", S, "[default] max, with units"},
    ParamSpec{"lsb.queues", "Queue", "DATALIMIT", S, "[default] max, with units"},
    ParamSpec{"lsb.queues", "Queue", "STACKLIMIT", S, "[default] max, with units"},
    ParamSpec{"lsb.queues", "Queue", "CORELIMIT", S, "[default] max, with units"},
    ParamSpec{"lsb.queues", "Queue", "PROCESSLIMIT", S, "processes per job"},
    ParamSpec{"lsb.queues", "Queue", "PROCLIMIT", S, "[min [default]] max processors per job"},
    ParamSpec{"lsb.queues", "Queue", "RUN_WINDOW", S, "time windows; jobs suspended outside"},
    ParamSpec{"lsb.queues", "Queue", "DISPATCH_WINDOW", S, "time windows for new dispatches"},
    ParamSpec{"lsb.queues", "Queue", "<load index>", S, "loadSched/loadStop thresholds"},
    ParamSpec{"lsb.queues", "Queue", "STOP_COND", S, "select[] that suspends running jobs"},
    ParamSpec{"lsb.queues", "Queue", "RESUME_COND", S, "select[] that resumes suspended jobs"},
    ParamSpec{"lsb.queues", "Queue", "PREEMPTION", S, "PREEMPTIVE[q+n ...] PREEMPTABLE[q ...]"},
    ParamSpec{"lsb.queues", "Queue", "BACKFILL", S, "Y/N"},
    ParamSpec{"lsb.queues", "Queue", "SLOT_RESERVE", S, "MAX_RESERVE_TIME[n]"},
    ParamSpec{"lsb.queues", "Queue", "RESOURCE_RESERVE", S, "MAX_RESERVE_TIME[n]"},
    ParamSpec{"lsb.queues", "Queue", "EXCLUSIVE", S, "Y/N: bsub -x allowed"},
    ParamSpec{"lsb.queues", "Queue", "INTERACTIVE", S, "YES, NO or ONLY"},
    ParamSpec{"lsb.queues", "Queue", "REQUEUE_EXIT_VALUES", S, "codes [EXCLUDE(codes)]"},
    ParamSpec{"lsb.queues", "Queue", "PRE_EXEC", S, "command before each job"},
    ParamSpec{"lsb.queues", "Queue", "POST_EXEC", S, "command after each job"},
    ParamSpec{"lsb.queues", "Queue", "PRE_POST_EXEC_USER", S, "user that runs them"},
    ParamSpec{"lsb.queues", "Queue", "JOB_STARTER", S, "wrapper, %USRCMD for the job"},
    ParamSpec{"lsb.queues", "Queue", "JOB_CONTROLS", S, "SUSPEND[] RESUME[] TERMINATE[] actions"},
    ParamSpec{"lsb.queues", "Queue", "TERMINATE_WHEN", S, "WINDOW LOAD PREEMPT"},
    ParamSpec{"lsb.queues", "Queue", "NICE", S, "nice value of jobs"},
    ParamSpec{"lsb.queues", "Queue", "RERUNNABLE", S, "Y/N"},
    ParamSpec{"lsb.queues", "Queue", "LOCAL_MAX_PREEXEC_RETRY_ACTION", S, "SUSPEND or EXIT (lsb.params')"},
    ParamSpec{"lsb.queues", "Queue", "JOB_ACCEPT_INTERVAL", S, "overrides lsb.params"},
    ParamSpec{"lsb.queues", "Queue", "FAIRSHARE", S, "USER_SHARES[[user, n] ...]"},
    ParamSpec{"lsb.queues", "Queue", "FAIRSHARE_QUEUES", S, "cross-queue fairshare"},
    ParamSpec{"lsb.queues", "Queue", "DISPATCH_ORDER", S, "QUEUE: cross-queue set by queue priority, then user"},
    ParamSpec{"lsb.queues", "Queue", "SLOT_POOL", S, "queue-based fairshare pool"},
    ParamSpec{"lsb.queues", "Queue", "SLOT_SHARE", S, "percent of the pool"},
    ParamSpec{"lsb.queues", "Queue", "MAX_SLOTS_IN_POOL", S, "pool size cap (first queue)"},
    ParamSpec{"lsb.queues", "Queue", "USE_PRIORITY_IN_POOL", S,
              "Y/N (first queue): unused pool slots to held-back jobs"},
    ParamSpec{"lsb.queues", "Queue", "CPU_TIME_FACTOR", S, "overrides lsb.params"},
    ParamSpec{"lsb.queues", "Queue", "RUN_TIME_FACTOR", S, "overrides lsb.params"},
    ParamSpec{"lsb.queues", "Queue", "RUN_JOB_FACTOR", S, "overrides lsb.params"},
    ParamSpec{"lsb.queues", "Queue", "HIST_HOURS", S, "overrides lsb.params"},
    ParamSpec{"lsb.queues", "Queue", "SLA_GUARANTEES_IGNORE", S, "Y/N"},
    ParamSpec{"lsb.queues", "Queue", "MIG", A, ""},
    ParamSpec{"lsb.queues", "Queue", "CHKPNT", A, ""},
    ParamSpec{"lsb.queues", "Queue", "NEW_JOB_SCHED_DELAY", A, ""},
    ParamSpec{"lsb.queues", "Queue", "IGNORE_DEADLINE", A, ""},
    ParamSpec{"lsb.queues", "Queue", "DEFAULT_HOST_SPEC", A, ""},
    ParamSpec{"lsb.queues", "Queue", "ENQUE_INTERACTIVE_AHEAD", A, ""},
    ParamSpec{"lsb.queues", "Queue", "ROUND_ROBIN_POLICY", A, ""},
    ParamSpec{"lsb.queues", "Queue", "OWNERSHIP", A, ""},
    ParamSpec{"lsb.queues", "Queue", "SLOT_MEMORY_RESERVE", A, ""},
    ParamSpec{"lsb.queues", "Queue", "EXTENDABLE_RUNLIMIT", A, ""},
    ParamSpec{"lsb.queues", "Queue", "APS_PRIORITY", S, "WEIGHT[[factor, w] ...] LIMIT[...] GRACE_PERIOD[...]"},
    ParamSpec{"lsb.queues", "Queue", "SNDJOBS_TO", A, ""},
    ParamSpec{"lsb.queues", "Queue", "RCVJOBS_FROM", A, ""},
    ParamSpec{"lsb.queues", "Queue", "FWD_USERS", A, ""},
    // lsb.hosts
    ParamSpec{"lsb.hosts", "Host", "HOST_NAME", S, "host, model, type or default"},
    ParamSpec{"lsb.hosts", "Host", "MXJ", S, "job slots; `!` = number of CPUs"},
    ParamSpec{"lsb.hosts", "Host", "JL/U", S, "slots per user on the host"},
    ParamSpec{"lsb.hosts", "Host", "DISPATCH_WINDOW", S, "time windows"},
    ParamSpec{"lsb.hosts", "Host", "MIG", S, "migration threshold, minutes"},
    ParamSpec{"lsb.hosts", "Host", "<load index>", S, "loadSched/loadStop thresholds"},
    ParamSpec{"lsb.hosts", "Host", "EXIT_RATE", A, ""},
    ParamSpec{"lsb.hosts", "Host", "CHKPNT", A, ""},
    ParamSpec{"lsb.hosts", "Host", "AFFINITY", A, ""},
    ParamSpec{"lsb.hosts", "HostGroup", "GROUP_NAME", S, "group name"},
    ParamSpec{"lsb.hosts", "HostGroup", "GROUP_MEMBER", S, "hosts and groups; `all`, `~host`, `(!)`"},
    ParamSpec{"lsb.hosts", "HostGroup", "CONDENSE", S, "Y/N"},
    ParamSpec{"lsb.hosts", "HostGroup", "MAX_SLOTS", S, "slots for the whole group"},
    ParamSpec{"lsb.hosts", "HostGroup", "GROUP_SLOT", A, ""},
    ParamSpec{"lsb.hosts", "HostPartition", "HPART_NAME", S, "partition name"},
    ParamSpec{"lsb.hosts", "HostPartition", "HOSTS", S, "its hosts"},
    ParamSpec{"lsb.hosts", "HostPartition", "USER_SHARES", S, "[user, n] ..."},
    ParamSpec{"lsb.hosts", "ComputeUnit", "NAME", S, "compute unit name"},
    ParamSpec{"lsb.hosts", "ComputeUnit", "TYPE", S, "one of COMPUTE_UNIT_TYPES"},
    ParamSpec{"lsb.hosts", "ComputeUnit", "CONDENSE", S, "Y/N"},
    ParamSpec{"lsb.hosts", "ComputeUnit", "MEMBER", S, "hosts and compute units"},
    // lsb.users
    ParamSpec{"lsb.users", "UserGroup", "GROUP_NAME", S, "group name"},
    ParamSpec{"lsb.users", "UserGroup", "GROUP_MEMBER", S, "users and groups; `all`, `(!)`"},
    ParamSpec{"lsb.users", "UserGroup", "USER_SHARES", S, "[member, n] ... (hierarchical fairshare)"},
    ParamSpec{"lsb.users", "UserGroup", "GROUP_ADMIN", S, "group administrators"},
    ParamSpec{"lsb.users", "UserGroup", "PRIORITY", A, ""},
    ParamSpec{"lsb.users", "User", "USER_NAME", S, "user, group, `group@` or default"},
    ParamSpec{"lsb.users", "User", "MAX_JOBS", S, "slots"},
    ParamSpec{"lsb.users", "User", "JL/P", S, "slots per processor"},
    ParamSpec{"lsb.users", "User", "MAX_PEND_JOBS", S, "pending jobs"},
    ParamSpec{"lsb.users", "User", "MAX_PEND_SLOTS", S, "pending slots"},
    ParamSpec{"lsb.users", "User", "PRIORITY", A, ""},
    // lsb.resources Limit
    ParamSpec{"lsb.resources", "Limit", "NAME", S, "limit name"},
    ParamSpec{"lsb.resources", "Limit", "USERS", S, "users/groups, together"},
    ParamSpec{"lsb.resources", "Limit", "PER_USER", S, "users/groups, each"},
    ParamSpec{"lsb.resources", "Limit", "QUEUES", S, "queues, together"},
    ParamSpec{"lsb.resources", "Limit", "PER_QUEUE", S, "queues, each"},
    ParamSpec{"lsb.resources", "Limit", "HOSTS", S, "hosts/groups, together"},
    ParamSpec{"lsb.resources", "Limit", "PER_HOST", S, "hosts/groups, each"},
    ParamSpec{"lsb.resources", "Limit", "PROJECTS", S, "projects, together"},
    ParamSpec{"lsb.resources", "Limit", "PER_PROJECT", S, "projects, each"},
    ParamSpec{"lsb.resources", "Limit", "APPS", A, ""},
    ParamSpec{"lsb.resources", "Limit", "PER_APP", A, ""},
    ParamSpec{"lsb.resources", "Limit", "LIC_PROJECTS", A, ""},
    ParamSpec{"lsb.resources", "Limit", "PER_LIC_PROJECT", A, ""},
    ParamSpec{"lsb.resources", "Limit", "SLOTS", S, "job slots; soft/hard"},
    ParamSpec{"lsb.resources", "Limit", "SLOTS_PER_PROCESSOR", S, "job slots per processor"},
    ParamSpec{"lsb.resources", "Limit", "JOBS", S, "running and suspended jobs; soft/hard"},
    ParamSpec{"lsb.resources", "Limit", "IDLE_JOBS", S, "pending jobs eligible at once (Maui MAXIJOB)"},
    ParamSpec{"lsb.resources", "Limit", "TOTAL_JOBS", S, "running plus eligible jobs"},
    ParamSpec{"lsb.resources", "Limit", "PROC_SECONDS", S, "soft[/hard] outstanding processor-seconds (Maui MAXPS)"},
    ParamSpec{"lsb.resources", "Limit", "MEM", S, "MB or n%"},
    ParamSpec{"lsb.resources", "Limit", "SWP", S, "MB or n%"},
    ParamSpec{"lsb.resources", "Limit", "TMP", S, "MB or n%"},
    ParamSpec{"lsb.resources", "Limit", "RESOURCE", S, "[name, n] ..."},
    // GuaranteedResourcePool
    ParamSpec{"lsb.resources", "GuaranteedResourcePool", "NAME", S, "pool name"},
    ParamSpec{"lsb.resources", "GuaranteedResourcePool", "TYPE", S,
              "slots | hosts | package[slots=n:mem=m] | resource[name]"},
    ParamSpec{"lsb.resources", "GuaranteedResourcePool", "HOSTS", S, "hosts the pool draws from"},
    ParamSpec{"lsb.resources", "GuaranteedResourcePool", "RES_SELECT", S, "select[] filter on pool hosts"},
    ParamSpec{"lsb.resources", "GuaranteedResourcePool", "DISTRIBUTION", S, "[service_class, n | n%] ..."},
    ParamSpec{"lsb.resources", "GuaranteedResourcePool", "LOAN_POLICIES", S,
              "QUEUES[] DURATION[] CLOSE_ON_DEMAND RETAIN[]"},
    ParamSpec{"lsb.resources", "GuaranteedResourcePool", "SLOTS_PER_HOST", S, "cap of SLA slots per host"},
    ParamSpec{"lsb.resources", "GuaranteedResourcePool", "DESCRIPTION", S, "text"},
    ParamSpec{"lsb.resources", "GuaranteedResourcePool", "ADMINISTRATORS", S, "pool administrators"},
    // HostExport, SharedResourceExport, ReservationUsage
    ParamSpec{"lsb.resources", "HostExport", "PER_HOST", S, "export these hosts slot by slot"},
    ParamSpec{"lsb.resources", "HostExport", "RES_SELECT", S, "export whole hosts matching this"},
    ParamSpec{"lsb.resources", "HostExport", "NHOSTS", S, "how many hosts RES_SELECT exports"},
    ParamSpec{"lsb.resources", "HostExport", "SLOTS", S, "slots per host"},
    ParamSpec{"lsb.resources", "HostExport", "MEM", S, "MB per host, reserved for consumers"},
    ParamSpec{"lsb.resources", "HostExport", "SWP", S, "MB per host (SWAP also read)"},
    ParamSpec{"lsb.resources", "HostExport", "SWAP", S, "same as SWP"},
    ParamSpec{"lsb.resources", "HostExport", "DISTRIBUTION", S, "[cluster, share] ..."},
    ParamSpec{"lsb.resources", "HostExport", "TYPE", S, "exclusive (default) or shared"},
    ParamSpec{"lsb.resources", "SharedResourceExport", "NAME", S, "shared resource"},
    ParamSpec{"lsb.resources", "SharedResourceExport", "NINSTANCES", S, "instances exported"},
    ParamSpec{"lsb.resources", "SharedResourceExport", "DISTRIBUTION", S, "[cluster, share] ..."},
    ParamSpec{"lsb.resources", "ReservationUsage", "RESOURCE", S, "shared resource"},
    ParamSpec{"lsb.resources", "ReservationUsage", "METHOD", S, "PER_JOB, PER_HOST, PER_SLOT or PER_TASK"},
    // lsb.serviceclasses
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "NAME", S, "service class name"},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "GOALS", S, "[GUARANTEE] or time-based goals"},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "ACCESS_CONTROL", S,
              "QUEUES[] USERS[] FAIRSHARE_GROUPS[] APPS[] PROJECTS[] LIC_PROJECTS[]"},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "AUTO_ATTACH", S, "Y/N"},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "DESCRIPTION", S, "text"},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "PRIORITY", S, "APS QOS factor; time-based classes"},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "QUEUE_TIME_TARGET", S,
              "minutes (extension): APS TARGETQUEUETIME, Maui's QTTARGET"},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "USER_GROUP", S, "time-based classes only"},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "CONTROL_ACTION", S, "time-based classes only"},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "CONSUMER", A, ""},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "EGO_RES_REQ", A, ""},
    ParamSpec{"lsb.serviceclasses", "ServiceClass", "MAX_HOST_IDLE_TIME", A, ""},
    // lsb.modules
    ParamSpec{"lsb.modules", "PluginModule", "SCH_PLUGIN", S, "module name, in pipeline order"},
    ParamSpec{"lsb.modules", "PluginModule", "RB_PLUGIN", A, ""},
    ParamSpec{"lsb.modules", "PluginModule", "SCH_DISABLE_PHASES", A, ""},
};

}  // namespace

std::span<const ParamSpec> param_catalog() { return kParams; }
std::span<const SectionSpec> section_catalog() { return kSections; }

const ParamSpec* find_param(std::string_view file, std::string_view section, std::string_view name) {
  for (const auto& p : kParams)
    if (p.file == file && iequals(p.section, section) && iequals(p.name, name)) return &p;
  return nullptr;
}

const SectionSpec* find_section(std::string_view file, std::string_view section) {
  for (const auto& s : kSections)
    if (s.file == file && iequals(s.section, section)) return &s;
  return nullptr;
}

std::string render_config_doc() {
  std::string out;
  out += "# Configuration files\n\n";
  out += "Generated from `libconfig/param_catalog.cc` (the test `ConfigDoc.MatchesCatalog` keeps it\n";
  out += "current; regenerate with `UPDATE_GOLDEN=1 build/tests/unit/unit_tests --gtest_filter=ConfigDoc.*`).\n\n";
  out += "Status: **supported** = read into the typed configuration and checked; **accepted** = a\n";
  out += "real LSF keyword, kept as written, with a warning that it is not yet acted on. Any other\n";
  out += "keyword draws an `unknown parameter` warning, as in LSF. `<load index>` stands for any\n";
  out += "built-in load index (r15s r1m r15m ut pg io ls it tmp swp mem) or its alias.\n\n";
  out += "What the supported keywords do at run time arrives with the issue that builds each policy;\n";
  out += "until then they are parsed, typed, cross-checked and shown by `badmin ckconfig -v`.\n";
  std::string_view file;
  for (const auto& s : kSections) {
    if (s.file != file) {
      file = s.file;
      out += "\n## " + std::string(file) + (file == "lsf.cluster" ? ".<name>" : "") + "\n";
    }
    out += "\n### " + std::string(s.section) + " (" + (s.table ? "table" : "KEY = value") + ", " +
           (s.support == Support::kSupported ? "supported" : "accepted") + ")\n\n";
    out += std::string(s.meaning) + ".\n\n";
    bool any = false;
    for (const auto& p : kParams) {
      if (p.file != s.file || p.section != s.section) continue;
      if (!any) out += "| keyword | status | meaning |\n|---|---|---|\n";
      any = true;
      out += "| `" + std::string(p.name) + "` | " + (p.support == Support::kSupported ? "supported" : "accepted") +
             " | " + std::string(p.meaning) + " |\n";
    }
  }
  out += "\n## lsf.conf\n\nShell-style `KEY=VALUE` lines; quotes are removed. Relative directories are taken\n";
  out += "from the directory of lsf.conf.\n\n| keyword | status | meaning |\n|---|---|---|\n";
  for (const auto& p : kParams) {
    if (p.file != "lsf.conf") continue;
    out += "| `" + std::string(p.name) + "` | " + (p.support == Support::kSupported ? "supported" : "accepted") +
           " | " + std::string(p.meaning) + " |\n";
  }
  return out;
}

}  // namespace lsf::config
