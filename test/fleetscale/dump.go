package fleetscale

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// DumpedKinds names the files dumpObjects writes and the lists they hold: the kinds the
// manager's cache holds one or more of per node of a round.
var DumpedKinds = map[string]func() client.ObjectList{
	"benches.json":  func() client.ObjectList { return &sbv1.SpiralBenchList{} },
	"attempts.json": func() client.ObjectList { return &sbv1.SpiralBenchAttemptResultList{} },
	"results.json":  func() client.ObjectList { return &sbv1.SpiralBenchNodeResultList{} },
	"nodes.json":    func() client.ObjectList { return &corev1.NodeList{} },
}

// dumpObjects writes each of DumpedKinds, as the apiserver returns them, into dir.
func dumpObjects(ctx context.Context, c client.Client, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for file, newList := range DumpedKinds {
		l := newList()
		if err := c.List(ctx, l); err != nil {
			return err
		}
		data, err := json.Marshal(l)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ReadDumped returns the objects of one file dumpObjects wrote: an error for a file it does not
// write, or one that holds no object.
func ReadDumped(path string) ([]json.RawMessage, error) {
	if _, known := DumpedKinds[filepath.Base(path)]; !known {
		return nil, fmt.Errorf("%s is not a file fleet-scale.sh dumps", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l struct{ Items []json.RawMessage }
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(l.Items) == 0 {
		return nil, fmt.Errorf("%s holds no objects", path)
	}
	return l.Items, nil
}
