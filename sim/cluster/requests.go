package cluster

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// PodRequests returns the requests of a pod made from spec as the
// scheduler, the kubelet and both autoscalers count them, in three steps,
// each as upstream does it:
//
//  1. Validation: what the API server rejects in requests and limits
//     (k8s pkg/apis/core/validation: a request above its limit; an
//     extended resource or hugepages whose request differs from its
//     limit or has no limit; pod-level resources other than cpu, memory
//     and hugepages, or below what the containers request), plus
//     negative values and values no node has.
//  2. Defaulting (k8s pkg/apis/core/v1/defaults.go SetDefaults_Pod): in
//     each container and init container, a resource with a limit and no
//     request gets the limit as its request; with pod-level limits
//     (spec.resources, KEP-2837) the pod-level requests default to the
//     containers' total, else to the pod-level limit.
//  3. Summing (k8s.io/component-helpers resource.PodRequests): the larger
//     of the app containers plus the sidecars (init containers with
//     restartPolicy: Always) and, for each other init container, its
//     request plus the sidecars started before it; pod-level requests
//     replace cpu and memory when set; spec.overhead is added as written
//     (no RuntimeClass admission fills it in).
//
// spec is not modified. Namespace LimitRanges, which could also fill in
// requests, are not read (the scenario loader skips them with a warning).
func PodRequests(spec *corev1.PodSpec) (corev1.ResourceList, *FieldError) {
	if fe := checkRequests(spec); fe != nil {
		return nil, fe
	}
	pod := &corev1.Pod{Spec: *spec}
	pod.Spec.Containers = defaultContainerRequests(spec.Containers)
	pod.Spec.InitContainers = defaultContainerRequests(spec.InitContainers)
	if spec.Resources != nil {
		r := *spec.Resources
		pod.Spec.Resources = &r
		defaultHugePagePodLimits(pod)
		defaultPodRequests(pod)
		if fe := checkPodLevel(pod); fe != nil {
			return nil, fe
		}
	}
	return resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}), nil
}

// defaultContainerRequests returns cs with each limit copied into the
// requests where the request is missing, in copies: cs is not modified.
func defaultContainerRequests(cs []corev1.Container) []corev1.Container {
	var out []corev1.Container
	for i := range cs {
		lim, req := cs[i].Resources.Limits, cs[i].Resources.Requests
		missing := false
		for name := range lim {
			if _, ok := req[name]; !ok {
				missing = true
				break
			}
		}
		if !missing {
			continue
		}
		if out == nil {
			out = append([]corev1.Container(nil), cs...)
		}
		r := make(corev1.ResourceList, len(lim)+len(req))
		for name, q := range req {
			r[name] = q
		}
		for name, q := range lim {
			if _, ok := r[name]; !ok {
				r[name] = q.DeepCopy()
			}
		}
		out[i].Resources.Requests = r
	}
	if out == nil {
		return cs
	}
	return out
}

// defaultHugePagePodLimits: with pod-level resources, a hugepages size the
// containers limit and the pod neither requests nor limits gets the
// containers' total as its pod-level limit.
func defaultHugePagePodLimits(pod *corev1.Pod) {
	pr := pod.Spec.Resources
	if len(pr.Limits) == 0 && len(pr.Requests) == 0 {
		return
	}
	var lims corev1.ResourceList
	for name, q := range resourcehelper.AggregateContainerLimits(pod, resourcehelper.PodResourcesOptions{}) {
		if !isHugePages(name) {
			continue
		}
		if _, ok := pr.Requests[name]; ok {
			continue
		}
		if _, ok := pr.Limits[name]; ok {
			continue
		}
		if lims == nil {
			lims = copyList(pr.Limits)
		}
		lims[name] = q.DeepCopy()
	}
	if lims != nil {
		pr.Limits = lims
	}
}

// defaultPodRequests: with pod-level limits, a pod-level request that is
// missing becomes the containers' total request for cpu and memory when
// the containers request it, else the pod-level limit.
func defaultPodRequests(pod *corev1.Pod) {
	pr := pod.Spec.Resources
	if len(pr.Limits) == 0 {
		return
	}
	reqs := copyList(pr.Requests)
	for name, q := range resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{}) {
		if _, ok := reqs[name]; !ok && podLevel(name) && overcommittable(name) {
			reqs[name] = q.DeepCopy()
		}
	}
	for name, q := range pr.Limits {
		if _, ok := reqs[name]; !ok && podLevel(name) {
			reqs[name] = q.DeepCopy()
		}
	}
	if len(reqs) > 0 {
		pr.Requests = reqs
	}
}

// checkPodLevel validates spec.resources after defaulting: only cpu,
// memory and hugepages, requests within limits, and requests at least the
// containers' total.
func checkPodLevel(pod *corev1.Pod) *FieldError {
	pr := pod.Spec.Resources
	for _, group := range []struct {
		path string
		list corev1.ResourceList
	}{{"resources.requests", pod.Spec.Resources.Requests}, {"resources.limits", pod.Spec.Resources.Limits}} {
		for _, name := range sortedResourceNames(group.list) {
			if !podLevel(name) {
				return &FieldError{Path: resourcePath(group.path, name),
					Msg: fmt.Sprintf("%s cannot be set at pod level, only cpu, memory and hugepages-*: set it in the containers' resources", name)}
			}
		}
	}
	for _, name := range sortedResourceNames(pr.Requests) {
		if lim, ok := pr.Limits[name]; ok {
			req := pr.Requests[name]
			if req.Cmp(lim) > 0 {
				return &FieldError{Path: resourcePath("resources.requests", name),
					Msg: fmt.Sprintf("%s is more than the pod-level limit %s (the API server rejects the pod): lower the request or raise the limit", req.String(), lim.String())}
			}
		}
	}
	if !resourcehelper.IsPodLevelRequestsSet(pod) {
		return nil
	}
	ctrs := resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{})
	for _, name := range sortedResourceNames(pr.Requests) {
		req := pr.Requests[name]
		if sum, ok := ctrs[name]; ok && req.Cmp(sum) < 0 {
			return &FieldError{Path: resourcePath("resources.requests", name),
				Msg: fmt.Sprintf("%s is less than the containers request in total (%s; the API server rejects the pod): raise it or lower theirs", req.String(), sum.String())}
		}
	}
	return nil
}

// Bounds beyond which a request is a typo, not a workload: no node has a
// million cores or a pebibyte of memory.
var (
	maxCPURequest   = resource.MustParse("1M")
	maxSizeRequest  = resource.MustParse("1Pi")
	maxCountRequest = resource.MustParse("1M")
)

// checkRequests rejects, at their field path, negative and absurd requests
// and limits, and the requests the API server's validation rejects
// against their limits.
func checkRequests(spec *corev1.PodSpec) *FieldError {
	check := func(path string, list corev1.ResourceList) *FieldError {
		for _, name := range sortedResourceNames(list) {
			q := list[name]
			p := resourcePath(path, name)
			if q.Sign() < 0 {
				return &FieldError{Path: p, Msg: fmt.Sprintf("%s is negative; requests and limits must be 0 or more", q.String())}
			}
			bound := maxCountRequest
			switch name {
			case corev1.ResourceCPU:
				bound = maxCPURequest
			case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
				bound = maxSizeRequest
			}
			if isHugePages(name) {
				bound = maxSizeRequest
			}
			if q.Cmp(bound) > 0 {
				return &FieldError{Path: p, Msg: fmt.Sprintf("%s is more than any node has (over %s); check the unit", q.String(), bound.String())}
			}
		}
		return nil
	}
	for _, group := range []struct {
		name string
		cs   []corev1.Container
	}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}} {
		for i := range group.cs {
			rr := &group.cs[i].Resources
			base := fmt.Sprintf("%s[%d].resources", group.name, i)
			if fe := check(base+".requests", rr.Requests); fe != nil {
				return fe
			}
			if fe := check(base+".limits", rr.Limits); fe != nil {
				return fe
			}
			if fe := checkAgainstLimits(base, rr); fe != nil {
				return fe
			}
		}
	}
	if r := spec.Resources; r != nil {
		if fe := check("resources.requests", r.Requests); fe != nil {
			return fe
		}
		if fe := check("resources.limits", r.Limits); fe != nil {
			return fe
		}
	}
	if spec.Overhead != nil {
		return check("overhead", spec.Overhead)
	}
	return nil
}

// checkAgainstLimits applies the API server's rules between a container's
// requests and limits: a request is at most its limit, and a resource that
// cannot be overcommitted (extended resources such as nvidia.com/gpu, and
// hugepages) needs a limit, which its request must equal.
func checkAgainstLimits(base string, rr *corev1.ResourceRequirements) *FieldError {
	for _, name := range sortedResourceNames(rr.Requests) {
		req := rr.Requests[name]
		lim, ok := rr.Limits[name]
		switch {
		case !ok && !overcommittable(name):
			return &FieldError{Path: resourcePath(base+".requests", name),
				Msg: fmt.Sprintf("a request without a limit: the API server requires a limit for resources that cannot be overcommitted, such as %s; move it to limits (the request defaults to the limit)", name)}
		case !ok:
		case !overcommittable(name) && req.Cmp(lim) != 0:
			return &FieldError{Path: resourcePath(base+".requests", name),
				Msg: fmt.Sprintf("%s differs from the limit %s: the API server requires the request of a resource that cannot be overcommitted, such as %s, to equal its limit; give only the limit (the request defaults to it)", req.String(), lim.String(), name)}
		case req.Cmp(lim) > 0:
			return &FieldError{Path: resourcePath(base+".requests", name),
				Msg: fmt.Sprintf("%s is more than the limit %s; the API server rejects a request above its limit: lower the request or raise the limit", req.String(), lim.String())}
		}
	}
	return nil
}

// overcommittable is upstream's IsOvercommitAllowed: native resources (no
// domain, or a kubernetes.io domain) except hugepages.
func overcommittable(name corev1.ResourceName) bool {
	s := string(name)
	native := !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix)
	return native && !isHugePages(name)
}

func isHugePages(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// podLevel reports whether spec.resources may hold the resource.
func podLevel(name corev1.ResourceName) bool {
	return name == corev1.ResourceCPU || name == corev1.ResourceMemory || isHugePages(name)
}

func copyList(l corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(l))
	for name, q := range l {
		out[name] = q.DeepCopy()
	}
	return out
}

// resourcePath appends a resource name to a field path as the manifest
// package writes keys: dotted when simple, else quoted in brackets
// (requests["nvidia.com/gpu"]), so that the loader finds its line.
func resourcePath(path string, name corev1.ResourceName) string {
	s := string(name)
	simple := s != ""
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
		case (r >= '0' && r <= '9') || r == '-':
			simple = simple && i > 0
		default:
			simple = false
		}
	}
	if simple {
		return path + "." + s
	}
	return path + "[" + strconv.Quote(s) + "]"
}
