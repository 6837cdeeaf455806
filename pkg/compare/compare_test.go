package compare

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// regressed is run B of the TCP sweep after a "driver upgrade": 8000 B x 4 pairs lost 10 %,
// 1000 B x 1 pair gained 1 % (inside the noise), 1 MiB x 4 pairs failed.
func regressed() (a, b *sbv1.SpiralBench) {
	a = fixture.TCPSweep("tcp-sweep", 1, false)
	b = fixture.TCPSweep("tcp-sweep", 1, true)
	b.UID = "f1xture1-tcp-sweep"
	b.Status.Environment.GPUDriver = "590.10.01"
	for i := range b.Status.CellResults {
		c := &b.Status.CellResults[i]
		factor := 1.0
		switch {
		case c.Parameters.PayloadBytes == 8000 && c.Parameters.Pairs == 4:
			factor = 0.9
		case c.Parameters.PayloadBytes == 1000 && c.Parameters.Pairs == 1:
			factor = 1.01
		}
		for j := range c.RepeatResults {
			c.RepeatResults[j].RXMbps = int64(math.Round(float64(c.RepeatResults[j].RXMbps) * factor))
		}
		if c.State != sbv1.CellFailed {
			aggregate.Fill(c)
		}
	}
	return a, b
}

func TestRegressionIsFoundAndNoiseIsNot(t *testing.T) {
	a, b := regressed()
	res, err := Compare(a, b, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, r := range res.Rows {
		verdicts[r.Parameters] = r.Verdict
		if r.Parameters == "8000 B x 4 pairs" && math.Abs(r.DeltaPct+10) > 0.01 {
			t.Errorf("8000 B x 4 pairs delta %.3f%%, want -10%%", r.DeltaPct)
		}
	}
	want := map[string]string{"8000 B x 4 pairs": Worse, "1 MiB x 4 pairs": FailedInB, "1000 B x 1 pair": NoChange, "8000 B x 2 pairs": NoChange}
	for cell, v := range want {
		if verdicts[cell] != v {
			t.Errorf("%s: %q, want %q", cell, verdicts[cell], v)
		}
	}
	if res.Worse != 2 {
		t.Errorf("worse %d, want 2", res.Worse)
	}
	if len(res.Environment) != 1 || res.Environment[0].Field != "gpuDriver" {
		t.Errorf("environment differences %+v, want gpuDriver alone", res.Environment)
	}
	// A wide tolerance accepts the 10 % loss but never a failed cell.
	res, _ = Compare(a, b, Options{TolerancePct: 15, Alpha: 0.05})
	if res.Worse != 1 {
		t.Errorf("tolerance 15%%: worse %d, want 1 (the failed cell)", res.Worse)
	}
	// A run compared with itself has nothing worse.
	if res, _ = Compare(a, a, DefaultOptions); res.Worse != 0 {
		t.Errorf("a run against itself: %d worse", res.Worse)
	}
}

func TestNothingInCommonIsAnError(t *testing.T) {
	if _, err := Compare(fixture.TCPSweep("tcp", 1, false), fixture.RoCELatency("roce"), DefaultOptions); err == nil {
		t.Error("comparing runs of two transports must fail")
	}
	other := fixture.TCPSweep("tcp", 1, false)
	for i := range other.Status.CellResults {
		other.Status.CellResults[i].Parameters.PayloadBytes += 1
	}
	if _, err := Compare(fixture.TCPSweep("tcp", 1, false), other, DefaultOptions); err == nil {
		t.Error("comparing runs without a common cell must fail")
	}
}

func TestGoldenText(t *testing.T) {
	for name, pair := range map[string]func() (*sbv1.SpiralBench, *sbv1.SpiralBench){
		"tcp-regression": regressed,
		"roce-latency-self": func() (*sbv1.SpiralBench, *sbv1.SpiralBench) {
			return fixture.RoCELatency("roce"), fixture.RoCELatency("roce")
		},
	} {
		t.Run(name, func(t *testing.T) {
			a, b := pair()
			res, err := Compare(a, b, DefaultOptions)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteText(&buf, res); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./pkg/compare -update to write it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("output differs from %s:\n%s", golden, buf.String())
			}
		})
	}
}

// What changed in the spec is listed; a key one run did not capture is not a difference.
func TestSpecDifferencesFirstAndUncapturedKeysApart(t *testing.T) {
	a, b := regressed()
	a.Status.Environment.Kernel = "" // an older data plane did not capture it
	b.Status.Environment.Kernel = "6.8.0"
	b.Spec.Run.Seconds = a.Spec.Run.Seconds + 3
	b.Spec.Acceptance = nil // how a run is judged does not change what it measured
	res, err := Compare(a, b, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spec) != 1 || res.Spec[0].Field != "run.seconds" {
		t.Errorf("spec differences %+v, want run.seconds alone", res.Spec)
	}
	for _, d := range res.Environment {
		if d.Field == "kernel" {
			t.Errorf("kernel captured in B only is listed as a difference: %+v", d)
		}
	}
	if len(res.NotCaptured) != 1 || res.NotCaptured[0] != "kernel (not captured in A)" {
		t.Errorf("not captured %v, want kernel (not captured in A)", res.NotCaptured)
	}
	var text bytes.Buffer
	if err := WriteText(&text, res); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	if i, j := bytes.Index(text.Bytes(), []byte("run.seconds")), bytes.Index(text.Bytes(), []byte("CELL")); i < 0 || i > j {
		t.Errorf("the spec difference is not listed before the table:\n%s", out)
	}
	if !bytes.Contains(text.Bytes(), []byte(`"3/2": cell 3 of A`)) {
		t.Errorf("no legend:\n%s", out)
	}
}
