package summary

import (
	"strings"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

const serverMsg = `{"v":1,"transport":"udp","role":"server","state":"Valid","reason":"","seconds_milli":5000,
"payload_bytes":8000,"pairs":2,"target_mbps":0,"tx_packets":1000,"tx_bytes":8000000,"rx_packets":900,
"rx_bytes":7200000,"pps":180,"tx_mbps":13,"rx_mbps":12,"drops":100,"drops_kind":"udp-proc-net-udp-drops","loss_ppm":100000,
"lost":100,"retrans":0,"cpu_master_mpct":1500,"cpu_tx_mpct":-1,"cpu_rx_mpct":85000,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1}`

const clientMsg = `{"v":1,"transport":"udp","role":"client","state":"Valid","reason":"","seconds_milli":5000,
"payload_bytes":8000,"pairs":2,"target_mbps":0,"tx_packets":1000,"tx_bytes":8000000,"rx_packets":900,
"rx_bytes":7200000,"pps":180,"tx_mbps":13,"rx_mbps":12,"drops":0,"drops_kind":"","loss_ppm":100000,
"cpu_master_mpct":900,"cpu_tx_mpct":99000,"cpu_rx_mpct":-1,"gpu_sm_mpct":-1,"gpu_mem_mpct":-1}`

func TestParseRefusesWhatIsNotASummary(t *testing.T) {
	for name, msg := range map[string]string{
		"log tail":      "terminate called after throwing an instance of 'std::runtime_error'",
		"empty":         "",
		"wrong version": `{"v":2,"state":"Valid"}`,
		"no state":      `{"v":1}`,
		"negative":      `{"v":1,"state":"Valid","rx_bytes":-5}`,
		"negative rate": `{"v":1,"state":"Valid","rx_mbps":-1}`,
		"negative time": `{"v":1,"state":"Valid","seconds_milli":-1}`,
		"negative p99":  `{"v":1,"state":"Valid","lat_p50_ns":5,"lat_p99_ns":-1}`,
	} {
		if _, err := Parse(msg); err == nil {
			t.Errorf("%s: Parse(%q) succeeded", name, msg)
		}
	}
	if _, err := Parse(serverMsg + "\n"); err != nil {
		t.Fatalf("a real summary must parse: %v", err)
	}
}

func TestMergeTakesEachSideFromWhereItIsKnown(t *testing.T) {
	srv, err := Parse(serverMsg)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := Parse(clientMsg)
	if err != nil {
		t.Fatal(err)
	}
	r := Merge(serverClient(&srv, &cli), 1, 2)
	if r.Repeat != 1 || r.Attempt != 2 || r.State != sbv1.CellValid {
		t.Fatalf("identity/state wrong: %+v", r)
	}
	if r.TXMbps != 13 || r.RXMbps != 12 || r.RXPackets != 900 || r.TXPackets != 1000 {
		t.Errorf("throughput from the wrong side: %+v", r)
	}
	if r.Drops != 100 || r.DropsKind != "udp-proc-net-udp-drops" || r.LossPPM != 100000 {
		t.Errorf("drops: want the receiver's 100 /proc/net/udp drops, got %d %q %d", r.Drops, r.DropsKind, r.LossPPM)
	}
	if r.SequenceGaps != 100 || r.SocketRetrans != 0 {
		t.Errorf("the second drop source: want 100 sequence gaps, got %d (retrans %d)", r.SequenceGaps, r.SocketRetrans)
	}
	if r.CPU == nil || r.CPU.TXMilliPercent != 99000 || r.CPU.RXMilliPercent != 85000 || r.CPU.MasterMilliPercent != 1500 {
		t.Errorf("cpu per role: %+v", r.CPU)
	}
	if r.GPU != nil {
		t.Errorf("no GPU measured (-1) must leave GPU empty, got %+v", r.GPU)
	}

	srv.State, srv.Reason = "Invalid", "no bytes received"
	r = Merge(serverClient(&srv, &cli), 0, 0)
	if r.State != sbv1.CellInvalid || !strings.Contains(r.Message, "server: no bytes received") {
		t.Errorf("an invalid side makes the repeat Invalid with its reason: %+v", r)
	}
}

func TestLatencyPercentilesComeFromTheClient(t *testing.T) {
	cli, err := Parse(strings.Replace(clientMsg, `"gpu_mem_mpct":-1}`, `"gpu_mem_mpct":-1,"lat_min_ns":1100,"lat_p50_ns":1500,"lat_p99_ns":2100,"lat_p999_ns":4200,"lat_max_ns":9000}`, 1))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := Parse(serverMsg)
	r := Merge(serverClient(&srv, &cli), 0, 0)
	if r.Latency == nil || r.Latency.P50Nanoseconds != 1500 || r.Latency.P99Nanoseconds != 2100 || r.Latency.P999Nanoseconds != 4200 || r.Latency.MinNanoseconds != 1100 {
		t.Errorf("latency %+v", r.Latency)
	}
	if r = Merge([]Part{{Summary: &srv, Receives: true}}, 0, 0); r.Latency != nil {
		t.Errorf("no latency fields, no latency: %+v", r.Latency)
	}
}

// serverClient is today's pair of ranks: the receiving server, then the sending client.
func serverClient(srv, cli *Summary) []Part {
	return []Part{{Summary: srv, Receives: true}, {Summary: cli, Sends: true}}
}

func TestMergeOfOneRankTakesEverythingFromIt(t *testing.T) {
	one, err := Parse(serverMsg)
	if err != nil {
		t.Fatal(err)
	}
	one.TXMbps, one.TXPackets = 21, 2100
	r := Merge([]Part{{Summary: &one, Receives: true, Sends: true}}, 0, 0)
	if r.RXMbps != one.RXMbps || r.TXMbps != 21 || r.TXPackets != 2100 || r.MeasuredMilliseconds != one.SecondsMilli {
		t.Errorf("a loopback rank is both receiver and sender: %+v", r)
	}
	if r.CPU.MasterMilliPercent != int32(one.CPUMasterMPct) || r.CPU.RXMilliPercent != int32(one.CPURXMPct) || r.CPU.TXMilliPercent != int32(one.CPUTXMPct) {
		t.Errorf("cpu from the one rank: %+v", r.CPU)
	}
}

func TestMergeOfNRanksSumsReceiversAndSendersAndKeepsTheWorst(t *testing.T) {
	srv, _ := Parse(serverMsg)
	cli, _ := Parse(clientMsg)
	second := srv
	second.Role, second.Drops, second.DropsKind, second.LossPPM = "rank2", 500, "udp-proc-net-udp-drops", 250000
	third := cli
	third.Role, third.State, third.Reason = "rank3", "Invalid", "peer lost"
	parts := []Part{{Summary: &srv, Receives: true}, {Summary: &cli, Sends: true}, {Summary: &second, Receives: true}, {Summary: &third, Sends: true}}
	r := Merge(parts, 0, 0)
	if r.RXMbps != srv.RXMbps+second.RXMbps || r.RXPackets != srv.RXPackets+second.RXPackets {
		t.Errorf("rx summed over receivers: %+v", r)
	}
	if r.TXMbps != cli.TXMbps+third.TXMbps || r.TXBytes != cli.TXBytes+third.TXBytes {
		t.Errorf("tx summed over senders: %+v", r)
	}
	if r.Drops != 500 || r.LossPPM != 250000 {
		t.Errorf("drops and loss: the worst rank's, got %d %d", r.Drops, r.LossPPM)
	}
	if r.State != sbv1.CellInvalid || !strings.Contains(r.Message, "rank3: peer lost") {
		t.Errorf("one invalid rank makes the repeat Invalid with its reason: %+v", r)
	}
}

func TestParseRepeatsKeepsEveryRepeatUpToTheFirstBrokenOne(t *testing.T) {
	one := strings.ReplaceAll(serverMsg, "\n", "")
	second := strings.Replace(one, `"rx_bytes":7200000`, `"rx_bytes":7200001`, 1)
	got, err := ParseRepeats(one + "\n" + second + "\n")
	if err != nil || len(got) != 2 || got[0].RXBytes != 7200000 || got[1].RXBytes != 7200001 {
		t.Fatalf("two repeats, in order: %+v, %v", got, err)
	}
	// A pod killed while writing its third line keeps the two it finished.
	got, err = ParseRepeats(one + "\n" + second + "\n" + one[:40])
	if err == nil || len(got) != 2 {
		t.Fatalf("a cut third line: want the two finished repeats and an error, got %d, %v", len(got), err)
	}
	// The multi-line single summary of older data planes still parses as one repeat.
	if got, err := ParseRepeats(serverMsg); err != nil || len(got) != 1 {
		t.Fatalf("one summary over several lines: %d, %v", len(got), err)
	}
	for _, msg := range []string{"", "terminate called", `{"v":2,"state":"Valid"}`} {
		if got, err := ParseRepeats(msg); err == nil || len(got) != 0 {
			t.Errorf("ParseRepeats(%q) = %d summaries, %v", msg, len(got), err)
		}
	}
}
