package fleetscale

import (
	"context"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/spiralbench/spiralbench/pkg/cellpod"
)

// podSpan is one cell pod's life by its own timestamps: created (apiserver) to its
// container's end (the fake kubelet's finishedAt).
type podSpan struct {
	node, bench       string
	created, finished time.Time
}

// podRecorder keeps every cell pod it sees, so the check can look for overlaps after the pods
// are gone (the operator deletes them once an attempt is recorded).
type podRecorder struct {
	mu   sync.Mutex
	pods map[string]*podSpan
}

func newPodRecorder() *podRecorder { return &podRecorder{pods: map[string]*podSpan{}} }

func (r *podRecorder) watch(ctx context.Context, cfg *rest.Config) (func(), error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(namespace))
	inf := factory.Core().V1().Pods().Informer()
	see := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok || p.Spec.NodeName == "" {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		s := r.pods[string(p.UID)]
		if s == nil {
			s = &podSpan{node: p.Spec.NodeName, bench: p.Labels[cellpod.LabelBench], created: p.CreationTimestamp.Time}
			r.pods[string(p.UID)] = s
		}
		for _, c := range p.Status.ContainerStatuses {
			if t := c.State.Terminated; t != nil && t.FinishedAt.After(s.finished) {
				s.finished = t.FinishedAt.Time
			}
		}
	}
	releases := make(chan string, 4096)
	release := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && p.Labels[cellpod.LabelRole] == cellpod.RoleClient && p.Status.Phase == corev1.PodSucceeded {
			select {
			case releases <- strings.TrimSuffix(p.Name, cellpod.RoleClient) + cellpod.RoleServer:
			default: // full: the server ends at its fallback timer
			}
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { see(o); release(o) },
		UpdateFunc: func(_, n any) { see(n); release(n) },
		DeleteFunc: r.gone,
	}); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	go releaseServers(ctx, cs, releases)
	go inf.Run(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	return cancel, nil
}

// gone ends the span of a pod removed before it was seen ending (deleted while it ran): it left
// its node when its object went, as far as anyone can tell.
func (r *podRecorder) gone(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.pods[string(p.UID)]; s != nil && s.finished.IsZero() {
		s.finished = time.Now()
	}
}

// annotationClientDone on a server pod tells KWOK (the server-complete stage) that its client
// has ended: a real server waits for its client, a stage cannot look at another pod.
const annotationClientDone = "fleetscale.spiralbench.io/client-done"

// releaseServers annotates the server pod of each client that ended.
func releaseServers(ctx context.Context, cs kubernetes.Interface, names <-chan string) {
	patch := []byte(`{"metadata":{"annotations":{"` + annotationClientDone + `":"true"}}}`)
	for {
		select {
		case <-ctx.Done():
			return
		case name := <-names:
			_, _ = cs.CoreV1().Pods(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		}
	}
}

// spans returns, per node, each bench's span: its first pod's creation to its last pod's end.
func (r *podRecorder) spans() map[string]map[string][2]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]map[string][2]time.Time{}
	for _, s := range r.pods {
		if out[s.node] == nil {
			out[s.node] = map[string][2]time.Time{}
		}
		span, ok := out[s.node][s.bench]
		if !ok || s.created.Before(span[0]) {
			span[0] = s.created
		}
		end := s.finished
		if end.IsZero() {
			end = time.Now() // never seen ending: open until now
		}
		if end.After(span[1]) {
			span[1] = end
		}
		out[s.node][s.bench] = span
	}
	return out
}
