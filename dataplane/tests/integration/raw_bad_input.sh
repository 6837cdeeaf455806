#!/usr/bin/env bash
# Raw transport bad input: exit 2 and one clear line, found before any traffic (parse time), or
# when DPDK looks for the device (EAL time; the driver may print its own reason first).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/raw_lib.sh"
require_raw
bad() {  # bad NAME TEXT ARGS...: exit 2, stderr's last line names the problem, summary says bad input
  local name=$1 text=$2
  shift 2
  run "$name" - loopback --transport raw --no-huge --seconds 0.2 --summary-file "$WORK/$name.summary" "$@"
  expect_rc "$name" 2
  tail -n 1 "$WORK/$name.err" | grep -qF -- "$text" || { show "$name"; fail "$name: stderr lacks \"$text\""; }
}
bad pci 'bad PCI address "0000:01:00.9"' --tx-port 0000:01:00.9 --rx-port net_ring0
bad vdev 'unknown vdev driver "net_foo"' --tx-port net_foo0 --rx-port net_ring0
bad device 'device needs a GPUDirect-capable NIC (a PCI port), but tx_port net_ring0 is a virtual device' \
  --tx-port net_ring0 --rx-port net_ring0 --memory device
bad ring 'batch" 4096 is larger than the ring: ring_descriptors is 1024' --tx-port net_ring0 --rx-port net_ring0 \
  --batch 4096
bad framesz 'framesz=2048 carries frames up to 2016 bytes' --tx-port net_af_packet0,iface=lo --rx-port net_ring0 \
  --payload-bytes 8000
bad role 'must be loopback for transport raw' --role server --tx-port net_ring0 --rx-port net_ring0
# well-formed, but no such device: found by DPDK
bad absent 'no DPDK port for this PCI device' --tx-port 0000:ff:1f.7 --rx-port net_ring0
bad driver 'the net_memif driver refused it' --tx-port net_memif0,role=bogus --rx-port net_ring0
expect_summary "$WORK/absent.summary" '.state == "Failed" and (.reason | startswith("bad input: "))'
echo "PASS: raw bad input"
