package simscript

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/clustersim/clustersim/sim/internal/testscript"
	"github.com/clustersim/clustersim/sim/scenario"
)

// deploy adds a Deployment (shorthand or manifest) and its replica plan.
func (s *Sim) deploy(b *testscript.Block) error {
	steps, err := replicaSteps(b.String("replicas", "1"))
	if err != nil {
		return err
	}
	ref, err := s.workloadObject(b, "Deployment", func(name, ns string, pod map[string]any) map[string]any {
		return map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec": map[string]any{
				"replicas": steps[0]["count"],
				"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
				"template": pod,
			},
		}
	})
	if err != nil {
		return err
	}
	s.workloads = append(s.workloads, map[string]any{"ref": ref, "replicas": steps})
	return nil
}

// job adds a Job (shorthand or manifest), its arrival and its runtime.
func (s *Sim) job(b *testscript.Block) error {
	pods, err := b.Int("pods", 1)
	if err != nil {
		return err
	}
	at := b.String("at", "0s")
	runtime, ok := b.Lookup("runtime")
	if !ok {
		return fmt.Errorf("give each pod's runtime: runtime=15m")
	}
	ref, err := s.workloadObject(b, "Job", func(name, ns string, pod map[string]any) map[string]any {
		pod["spec"].(map[string]any)["restartPolicy"] = "Never"
		return map[string]any{
			"apiVersion": "batch/v1", "kind": "Job",
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec":     map[string]any{"completions": pods, "parallelism": pods, "template": pod},
		}
	})
	if err != nil {
		return err
	}
	s.workloads = append(s.workloads, map[string]any{"ref": ref,
		"arrivals": map[string]any{"at": at}, "runtime": map[string]any{"fixed": runtime}})
	return nil
}

// workloadObject adds the block's manifest, or builds one of kind from
// the shorthand arguments, and returns its reference (Kind/ns/name).
func (s *Sim) workloadObject(b *testscript.Block, kind string, object func(name, ns string, pod map[string]any) map[string]any) (string, error) {
	if strings.TrimSpace(b.Input) != "" {
		var meta struct {
			Kind     string `yaml:"kind"`
			Metadata struct {
				Name      string `yaml:"name"`
				Namespace string `yaml:"namespace"`
			} `yaml:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(b.Input), &meta); err != nil {
			return "", fmt.Errorf("input: one %s manifest: %v", kind, err)
		}
		s.addFile(b, b.Input)
		return meta.Kind + "/" + nsOr(meta.Metadata.Namespace) + "/" + meta.Metadata.Name, nil
	}
	name, ok := b.Lookup("name")
	if !ok {
		return "", fmt.Errorf("give the workload's name=, or its manifest as input")
	}
	ns := nsOr(b.String("namespace", ""))
	pod, err := podTemplate(b, name)
	if err != nil {
		return "", err
	}
	s.addFile(b, string(mustYAML(object(name, ns, pod))))
	return kind + "/" + ns + "/" + name, nil
}

func nsOr(ns string) string {
	if ns == "" {
		return scenario.DefaultNamespace
	}
	return ns
}

// replicaSteps reads count[@at],...: "4" or "4,1@10m" or "0,3@1m".
func replicaSteps(v string) ([]map[string]any, error) {
	var steps []map[string]any
	for i, item := range strings.Split(v, ",") {
		count, at, ok := strings.Cut(item, "@")
		if !ok {
			if i > 0 {
				return nil, fmt.Errorf("replicas=%s: say when each later count holds (4,1@10m)", v)
			}
			at = "0s"
		}
		n, err := strconv.Atoi(count)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("replicas=%s: %q is not a count", v, count)
		}
		steps = append(steps, map[string]any{"at": at, "count": n})
	}
	return steps, nil
}

// podTemplate builds a pod template from the shorthand pod options.
func podTemplate(b *testscript.Block, app string) (map[string]any, error) {
	labels := map[string]any{"app": app}
	for _, kv := range b.List("labels") {
		k, v, _ := strings.Cut(kv, "=")
		labels[k] = v
	}
	meta := map[string]any{"labels": labels}
	if b.Flag("do-not-disrupt") {
		meta["annotations"] = map[string]any{"karpenter.sh/do-not-disrupt": "true"}
	}
	requests := map[string]any{}
	for _, r := range []string{"cpu", "memory"} {
		if v, ok := b.Lookup(r); ok {
			requests[r] = v
		}
	}
	spec := map[string]any{"containers": []any{map[string]any{
		"name": "app", "image": "app", "resources": map[string]any{"requests": requests}}}}
	if sel := b.List("select"); sel != nil {
		ns := map[string]any{}
		for _, kv := range sel {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("select=%s: give key=value", kv)
			}
			ns[k] = v
		}
		spec["nodeSelector"] = ns
	}
	var tolerations []any
	for _, kv := range b.List("tolerate") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			tolerations = append(tolerations, map[string]any{"key": k, "operator": "Equal", "value": v})
		} else {
			tolerations = append(tolerations, map[string]any{"key": kv, "operator": "Exists"})
		}
	}
	if tolerations != nil {
		spec["tolerations"] = tolerations
	}
	if pc, ok := b.Lookup("priority-class"); ok {
		spec["priorityClassName"] = pc
	}
	selector := map[string]any{"matchLabels": map[string]any{"app": app}}
	affinity := map[string]any{}
	if key, ok := b.Lookup("spread"); ok {
		tk, err := topologyKey("spread", key)
		if err != nil {
			return nil, err
		}
		spec["topologySpreadConstraints"] = []any{map[string]any{"maxSkew": 1, "topologyKey": tk,
			"whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector}}
	}
	if key, ok := b.Lookup("anti-affinity"); ok {
		tk, err := topologyKey("anti-affinity", key)
		if err != nil {
			return nil, err
		}
		affinity["podAntiAffinity"] = map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{
			map[string]any{"labelSelector": selector, "topologyKey": tk}}}
	}
	if zone, ok := b.Lookup("prefer-zone"); ok {
		affinity["nodeAffinity"] = map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{
			map[string]any{"weight": 10, "preference": map[string]any{"matchExpressions": []any{
				map[string]any{"key": "topology.kubernetes.io/zone", "operator": "In", "values": []any{zone}}}}}}}
	}
	if len(affinity) > 0 {
		spec["affinity"] = affinity
	}
	return map[string]any{"metadata": meta, "spec": spec}, nil
}

func topologyKey(arg, v string) (string, error) {
	switch v {
	case "zone":
		return "topology.kubernetes.io/zone", nil
	case "hostname":
		return "kubernetes.io/hostname", nil
	}
	return "", fmt.Errorf("%s=%s: use zone or hostname", arg, v)
}
