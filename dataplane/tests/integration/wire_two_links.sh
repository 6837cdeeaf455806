#!/usr/bin/env bash
# TCP over two veth wires at once: four pairs spread over two links, per-link and
# aggregate results, each link's interfaces found by address, and "wire unverified" (veth has
# no PHY counters). The kernel's own per-interface counters show both wires carried the bytes.
source "$(dirname "$0")/lib.sh"
[[ $(id -u) == 0 ]] || skip "needs root to create network namespaces"
command -v ip >/dev/null || skip "iproute2 (ip) is not installed"
export SBW_NS_A="sbw2t$$-a" SBW_NS_B="sbw2t$$-b"
ip netns add "$SBW_NS_A" 2>/dev/null || skip "cannot create network namespaces here"
ip netns del "$SBW_NS_A"
WIRE_OWNED=1
# Two veth pairs between the same two namespaces, one subnet each.
SBW_IF_A=sbw2-a0 SBW_IF_B=sbw2-b0 SBW_IP_A=10.79.1.1 SBW_IP_B=10.79.1.2 "$WIRE" up 9000 >/dev/null || fail "wire 0"
SBW_IF_A=sbw2-a1 SBW_IF_B=sbw2-b1 SBW_IP_A=10.79.2.1 SBW_IP_B=10.79.2.2 "$WIRE" up 9000 >/dev/null || fail "wire 1"
tx_bytes() { ip netns exec "$SBW_NS_A" cat "/sys/class/net/$1/statistics/tx_bytes"; }
before0=$(tx_bytes sbw2-a0) before1=$(tx_bytes sbw2-a1)

args=(--transport tcp --pairs 4 --payload-bytes 8000 --base-port 17931 --seconds 1.5 --warmup-seconds 0.5)
start server "$SBW_NS_B" server "${args[@]}" --bind-address 0.0.0.0 --grace-ms 1000 --summary-file "$WORK/server.summary"
run client "$SBW_NS_A" client "${args[@]}" --server-address 10.79.1.2 --server-addresses 10.79.1.2,10.79.2.2 \
  --csv-file "$WORK/runs.csv" --summary-file "$WORK/client.summary"
finish server
expect_rc server 0
expect_rc client 0
for side in server client; do
  expect $side '.state == "Valid"' "run is Valid"
  expect $side '.links | length == 2' "two links"
  expect $side '[.links[].pairs] == [2, 2]' "pairs 0,2 on link 0 and 1,3 on link 1"
  expect $side '.links[0].address == "10.79.1.2" and .links[1].address == "10.79.2.2"' "each link's server address"
  expect $side '.links[0].tx_netdev == "sbw2-a0" and .links[1].tx_netdev == "sbw2-a1"' "client found its interface per link"
  expect $side '.links[0].rx_netdev == "sbw2-b0" and .links[1].rx_netdev == "sbw2-b1"' "server found its interface per link"
  expect $side 'all(.links[]; .tx_bytes > 0 and .rx_bytes > 0 and .wire == "unverified")' "both links carried bytes"
  expect $side '([.links[].tx_bytes] | add) == .tx_bytes and ([.links[].rx_bytes] | add) == .rx_bytes' "links add up to the aggregate"
  expect $side '.wire == "unverified" and (.wire_note | startswith("wire unverified: sbw2-"))' "wire unverified, named"
  expect $side '.wire_note | contains("no PHY counters")' "the note says why"
  expect_summary "$WORK/$side.summary" '.wire == "unverified" and (.links | length) == 2 and .tx_bytes_phy == 0'
done
same_on_both_sides server client tx_bytes rx_bytes
# The kernel's counters of each veth moved by at least the link's share of the bytes.
after0=$(tx_bytes sbw2-a0) after1=$(tx_bytes sbw2-a1)
link0=$(record client | jq '.links[0].tx_bytes') link1=$(record client | jq '.links[1].tx_bytes')
((after0 - before0 >= link0)) || fail "sbw2-a0 sent $((after0 - before0)) bytes for link 0's $link0"
((after1 - before1 >= link1)) || fail "sbw2-a1 sent $((after1 - before1)) bytes for link 1's $link1"
# The CSV row: wire and link count columns.
header=$(head -1 "$WORK/runs.csv") row=$(sed -n 2p "$WORK/runs.csv")
col() { awk -F, -v want="$1" 'NR==1{for(i=1;i<=NF;i++) if($i==want) n=i} NR==2{print $n}' "$WORK/runs.csv"; }
[[ $(col wire) == unverified && $(col links) == 2 ]] || fail "csv: $header / $row"
echo "PASS: tcp over two veth wires: $(record client | jq -r '[.links[] | "\(.tx_netdev) \(.tx_mbps) Mb/s"] | join(", ")'), wire $(record client | jq -r .wire)"
