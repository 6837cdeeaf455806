package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/liveview"
	"github.com/spiralbench/spiralbench/pkg/plan"
)

// liveFollower draws the running attempt's live view: it streams the logs of the attempt's
// pods through the API server (as kubectl logs -f does) and feeds their progress lines to a
// liveview.View, redrawn once a second by follow.
type liveFollower struct {
	cs    kubernetes.Interface
	width int

	mu        sync.Mutex
	view      *liveview.View
	attempt   string
	sctx      context.Context
	cancel    context.CancelFunc
	streaming map[string]bool
}

func newLiveFollower(cs kubernetes.Interface, width int) *liveFollower {
	return &liveFollower{cs: cs, width: width}
}

// update follows the bench's active attempt (starting streams for its pods as they start)
// and redraws the screen.
func (f *liveFollower) update(ctx context.Context, w io.Writer, sb *sbv1.SpiralBench, status string) {
	if a := sb.Status.ActiveAttempt; a != nil {
		if key := fmt.Sprintf("%d/%d/%d", a.CellIndex, a.Repeat, a.Attempt); key != f.attempt {
			f.stop()
			title := fmt.Sprintf("%s/%s  cell %d", sb.Namespace, sb.Name, a.CellIndex)
			if c, ok := cellParameters(sb, a.CellIndex); ok {
				title += " (" + c + ")"
			}
			title += fmt.Sprintf("  repeat %d  attempt %d", a.Repeat, a.Attempt)
			f.mu.Lock()
			f.sctx, f.cancel = context.WithCancel(ctx)
			f.view, f.attempt, f.streaming = liveview.New(title), key, map[string]bool{}
			f.view.NameStreams(streamName(sb.Spec.Transport))
			if p, ok := benchkind.Lookup(sb.Spec.Transport); ok && !p.LiveFigures {
				f.view.NoLiveFigures(fmt.Sprintf("%s prints no live figures: its results arrive when the cell ends", sb.Spec.Transport))
			}
			f.mu.Unlock()
		}
		f.startStreams(f.sctx, sb, a)
	}
	fmt.Fprint(w, "\033[H\033[2J") // home, clear: one frame per second
	fmt.Fprintln(w, status)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.view != nil {
		f.view.Render(w, f.width)
	}
}

// stop ends the streams of the previous attempt.
func (f *liveFollower) stop() {
	if f.cancel != nil {
		f.cancel()
	}
}

// startStreams streams every started pod of the attempt not yet streamed.
func (f *liveFollower) startStreams(ctx context.Context, sb *sbv1.SpiralBench, a *sbv1.ActiveAttempt) {
	sel := labels.SelectorFromSet(labels.Set{cellpod.LabelBench: sb.Name, cellpod.LabelCell: fmt.Sprint(a.CellIndex),
		cellpod.LabelRepeat: fmt.Sprint(a.Repeat), cellpod.LabelAttempt: fmt.Sprint(a.Attempt)})
	pods, err := f.cs.CoreV1().Pods(sb.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return
	}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodPending || p.Status.Phase == "" {
			continue // no log before the container starts
		}
		f.mu.Lock()
		started := f.streaming[p.Name]
		f.streaming[p.Name] = true
		view := f.view
		f.mu.Unlock()
		if !started {
			go f.stream(ctx, p.Namespace, p.Name, view)
		}
	}
}

// stream follows one pod's log and adds its progress lines to view.
func (f *liveFollower) stream(ctx context.Context, ns, pod string, view *liveview.View) {
	req := f.cs.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: "dataplane", Follow: true})
	rc, err := req.Stream(ctx)
	if err != nil {
		f.mu.Lock()
		f.streaming[pod] = false // try again next second
		f.mu.Unlock()
		return
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if p, ok := liveview.Parse(sc.Bytes()); ok {
			f.mu.Lock()
			view.Add(p)
			f.mu.Unlock()
		}
	}
}

// cellParameters names a cell of the plan (the running cell has no result yet).
func cellParameters(sb *sbv1.SpiralBench, index int32) (string, bool) {
	cells, err := plan.Expand(&sb.Spec)
	if err != nil || int(index) >= len(cells) {
		return "", false
	}
	return benchkind.Parameters(sb.Spec.Transport, cells[index].CellParameters), true
}

// streamName is what the transport's streams are called in the seed's tables (its kind says).
func streamName(t sbv1.Transport) string {
	if p, ok := benchkind.Lookup(t); ok && p.StreamName != "" {
		return p.StreamName
	}
	return "queue"
}
