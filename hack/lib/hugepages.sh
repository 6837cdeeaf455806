# Sourced by the DPDK benchmarks that share memif regions between two processes, which DPDK
# allows only from hugepages. Needs HUGE_DIR (a mount point of this run) and HUGE_ADDED=0 set.
#   hugepages_on [PAGES]   adds HUGEPAGES (or PAGES, default 512) 2 MiB pages host-wide, mounts HUGE_DIR
#   hugepages_off          unmounts and gives back exactly the pages it added
hugepages_on() {
  local want=${HUGEPAGES:-${1:-512}} before
  before=$(cat /proc/sys/vm/nr_hugepages)
  echo $((before + want)) >/proc/sys/vm/nr_hugepages  # not sysctl: the GPU machine may lack procps
  HUGE_ADDED=$(($(cat /proc/sys/vm/nr_hugepages) - before))
  mkdir -p "$HUGE_DIR"
  mountpoint -q "$HUGE_DIR" || mount -t hugetlbfs -o pagesize=2M nodev "$HUGE_DIR"
}
hugepages_off() {
  if mountpoint -q "$HUGE_DIR" 2>/dev/null; then
    rm -f "$HUGE_DIR"/*
    umount "$HUGE_DIR"
  fi
  local now
  now=$(cat /proc/sys/vm/nr_hugepages)
  # someone else may have changed the host-wide setting meanwhile: never go below zero
  ((HUGE_ADDED == 0)) || echo $((now > HUGE_ADDED ? now - HUGE_ADDED : 0)) >/proc/sys/vm/nr_hugepages
  HUGE_ADDED=0
}
