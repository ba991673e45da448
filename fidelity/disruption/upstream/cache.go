package upstream

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// podCache answers pod Lists from an in-memory snapshot indexed by
// spec.nodeName, as the operator's informer cache does. The fake client
// lists every pod through a JSON round trip before filtering, which made
// the per-node pod lists of candidate building dominate a poll. Any pod
// write drops the snapshot; Lists it cannot answer (other field
// selectors, paging) go to the fake client.
type podCache struct {
	mu     sync.RWMutex
	valid  bool
	all    []*corev1.Pod
	byNode map[string][]*corev1.Pod
}

func (p *podCache) funcs() interceptor.Funcs {
	invalidate := func(obj client.Object) {
		if _, ok := obj.(*corev1.Pod); ok {
			p.mu.Lock()
			p.valid = false
			p.mu.Unlock()
		}
	}
	return interceptor.Funcs{
		List: p.list,
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			invalidate(obj)
			return c.Create(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			invalidate(obj)
			return c.Delete(ctx, obj, opts...)
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			invalidate(obj)
			return c.DeleteAllOf(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			invalidate(obj)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			invalidate(obj)
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			invalidate(&corev1.Pod{}) // type unknown here: drop it
			return c.Apply(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			invalidate(obj)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			invalidate(obj)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	}
}

func (p *podCache) list(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
	pl, ok := list.(*corev1.PodList)
	if !ok {
		return c.List(ctx, list, opts...)
	}
	o := (&client.ListOptions{}).ApplyOptions(opts)
	if o.Limit > 0 || o.Continue != "" {
		return c.List(ctx, list, opts...)
	}
	node, byNode := "", false
	if o.FieldSelector != nil && !o.FieldSelector.Empty() {
		reqs := o.FieldSelector.Requirements()
		if len(reqs) != 1 || reqs[0].Field != "spec.nodeName" || (reqs[0].Operator != selection.Equals && reqs[0].Operator != selection.DoubleEquals) {
			return c.List(ctx, list, opts...)
		}
		node, byNode = reqs[0].Value, true
	}
	if err := p.fill(ctx, c); err != nil {
		return err
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	src := p.all
	if byNode {
		src = p.byNode[node]
	}
	unsafe := o.UnsafeDisableDeepCopy != nil && *o.UnsafeDisableDeepCopy
	pl.Items = make([]corev1.Pod, 0, len(src))
	for _, pod := range src {
		if o.Namespace != "" && pod.Namespace != o.Namespace {
			continue
		}
		if o.LabelSelector != nil && !o.LabelSelector.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if unsafe {
			pl.Items = append(pl.Items, *pod)
		} else {
			pl.Items = append(pl.Items, *pod.DeepCopy())
		}
	}
	return nil
}

func (p *podCache) fill(ctx context.Context, c client.WithWatch) error {
	p.mu.RLock()
	valid := p.valid
	p.mu.RUnlock()
	if valid {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.valid {
		return nil
	}
	all := &corev1.PodList{}
	if err := c.List(ctx, all); err != nil {
		return err
	}
	p.all, p.byNode = nil, map[string][]*corev1.Pod{}
	for i := range all.Items {
		pod := &all.Items[i]
		p.all = append(p.all, pod)
		p.byNode[pod.Spec.NodeName] = append(p.byNode[pod.Spec.NodeName], pod)
	}
	p.valid = true
	return nil
}
