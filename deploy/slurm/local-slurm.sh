#!/bin/sh
# A one-node Slurm on this host for the deploy module's Slurm tests: munged as the munge user with a generated
# key, slurmctld and slurmd as root, one CPU partition named "busload" holding this host. No cgroups (a container
# or a VM may not delegate them): processes are tracked by process group and tasks are not confined. The daemons
# talk over 127.0.0.1, so the host's name need not resolve.
#   local-slurm.sh start DIR   installs slurm-wlm and munge when missing, writes DIR/slurm.conf, starts the daemons
#                              (again after a stop; what already runs is left alone) and waits for the node to be idle
#   local-slurm.sh stop DIR    stops the daemons it started from DIR
# Clients reach it with SLURM_CONF=DIR/slurm.conf.
set -eu
action=${1:?usage: local-slurm.sh start|stop DIR}
dir=${2:?usage: local-slurm.sh start|stop DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf

stop_pid() {
  pid=$(cat "$1" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    n=0
    while kill -0 "$pid" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
  fi
  rm -f "$1"
}

# A daemon that exits at start (a port taken by another Slurm, a bad key) is reported at once, with its log.
started() {
  sleep 1
  pid=$(cat "$1" 2>/dev/null || true)
  if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
    echo "local-slurm.sh: $2 did not stay up:" >&2
    tail -5 "$3" >&2 || true
    exit 1
  fi
}

if [ "$action" = stop ]; then
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munge/munged.pid"
  exit 0
fi
[ "$action" = start ] || { echo "local-slurm.sh: unknown action '$action' (start or stop)" >&2; exit 2; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null
fi

node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$dir/munge" "$dir/spool/ctld" "$dir/spool/d" "$dir/log"
chown munge: "$dir/munge"
chmod 700 "$dir/munge"
if [ ! -s "$dir/munge/munge.key" ]; then
  mungekey --create --keyfile="$dir/munge/munge.key"
  chown munge: "$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
fi
cat > "$conf" <<CONF
ClusterName=busload-test
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/spool/ctld
SlurmdSpoolDir=$dir/spool/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=$(( ${BUSLOAD_SLURMCTLD_PORT:-6817} ))
SlurmdPort=$(( ${BUSLOAD_SLURMD_PORT:-6818} ))
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
KillWait=5
MpiDefault=none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=busload Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$conf"

if ! { [ -f "$dir/munge/munged.pid" ] && kill -0 "$(cat "$dir/munge/munged.pid")" 2>/dev/null; }; then
  runuser -u munge -- munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" --force
  started "$dir/munge/munged.pid" munged "$dir/munge/munged.log"
fi
if ! { [ -f "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; }; then
  slurmctld -c -f "$conf"
  started "$dir/slurmctld.pid" slurmctld "$dir/log/slurmctld.log"
fi
if ! { [ -f "$dir/slurmd.pid" ] && kill -0 "$(cat "$dir/slurmd.pid")" 2>/dev/null; }; then
  slurmd -f "$conf"
  started "$dir/slurmd.pid" slurmd "$dir/log/slurmd.log"
fi
n=0
until sinfo -h -n "$node" -o %t 2>/dev/null | grep -qx 'idle\|mix\|alloc'; do
  n=$((n + 1))
  if [ $n -gt 120 ]; then
    echo "local-slurm.sh: node $node not idle after 60 s: $(sinfo -h -N -o '%N %t %E' 2>&1)" >&2
    tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
    exit 1
  fi
  sleep 0.5
done
echo "$conf"
