package scengen

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/clustersim/clustersim/sim/importer"
)

// docs joins objects as YAML documents.
func docs(objs ...any) ([]byte, error) {
	var b bytes.Buffer
	for _, o := range objs {
		data, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.Bytes(), nil
}

// list is a kubectl List of the objects.
func list(objs []any) ([]byte, error) {
	return yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": objs})
}

// settings are the Scenario's spec fields that no export carries.
func (p *plan) settings(spec map[string]any) {
	spec["seed"] = p.seed
	if p.group == nil {
		// An import takes the zones its nodes are in; the cluster's
		// subnets span these (with a node group, its ClusterConfig's
		// availabilityZones say so).
		spec["zones"] = p.zones
	} else {
		delete(spec, "zones")
	}
	spec["market"] = p.market
	if p.karpenter != nil {
		spec["karpenter"] = p.karpenter
	}
	if p.group != nil && !(p.imported && p.caDeployment) {
		spec["clusterAutoscaler"] = map[string]any{"args": p.caArgs}
	}
}

// scenario writes the plan as a scenario: the Scenario document with
// startOn, then the manifests.
func (p *plan) scenario() ([]byte, error) {
	var entries []any
	for _, w := range p.works {
		e := map[string]any{"ref": w.ref()}
		switch w.kind {
		case "Deployment", "Job":
			var on []string
			for _, n := range w.startOn {
				if n != "" {
					on = append(on, n)
				}
			}
			if on != nil {
				e["startOn"] = on
			}
			var term []any
			for _, n := range w.terminating {
				term = append(term, map[string]any{"node": n, "for": "20s"})
			}
			if term != nil {
				e["startTerminating"] = term
			}
		case "StatefulSet":
			on := slices.Clone(w.startOn)
			for len(on) > 0 && on[len(on)-1] == "" {
				on = on[:len(on)-1]
			}
			if on != nil {
				e["startOn"] = on
			}
		}
		if w.runtime != nil {
			e["runtime"] = w.runtime
		}
		if len(e) > 1 {
			entries = append(entries, e)
		}
	}
	spec := map[string]any{"duration": p.duration.String(), "importedAt": importedAt.Format(time.RFC3339)}
	if entries != nil {
		spec["workloads"] = entries
	}
	p.settings(spec)
	objs := []any{map[string]any{"apiVersion": "clustersim.dev/v1alpha1", "kind": "Scenario",
		"metadata": map[string]any{"name": fmt.Sprintf("gen-%d", p.seed)}, "spec": spec}}
	objs = append(objs, p.autoscalerObjects()...)
	for _, n := range p.nodes {
		objs = append(objs, p.nodeObject(n, false))
	}
	for _, w := range p.works {
		if w.kind == "Pod" {
			objs = append(objs, p.barePod(w, false))
		} else {
			objs = append(objs, p.controller(w, false))
		}
	}
	for _, b := range p.pdbs {
		objs = append(objs, p.pdbObject(b, false))
	}
	return docs(objs...)
}

// autoscalerObjects are the NodePools, their EC2NodeClass and the eksctl
// ClusterConfig.
func (p *plan) autoscalerObjects() []any {
	var objs []any
	for _, pl := range p.pools {
		objs = append(objs, pl.object())
	}
	if len(p.pools) > 0 {
		objs = append(objs, ec2NodeClass())
	}
	if p.group != nil {
		objs = append(objs, p.clusterConfig())
	}
	return objs
}

// exports writes the plan as kubectl would export the cluster: the
// objects with their pods, Karpenter's objects, the eksctl
// ClusterConfig, and the Cluster Autoscaler's Deployment.
func (p *plan) exports() map[string][]byte {
	var items []any
	for _, n := range p.nodes {
		items = append(items, p.nodeObject(n, true))
	}
	for _, w := range p.works {
		items = append(items, p.exportWork(w)...)
	}
	for _, b := range p.pdbs {
		items = append(items, p.pdbObject(b, true))
	}
	out := map[string][]byte{}
	must := func(data []byte, err error) []byte {
		if err != nil {
			panic(err) // the API's types always marshal
		}
		return data
	}
	out["cluster.yaml"] = must(list(items))
	if len(p.pools) > 0 {
		var kitems []any
		for _, pl := range p.pools {
			kitems = append(kitems, pl.object())
		}
		kitems = append(kitems, ec2NodeClass())
		if p.nodeClaims {
			for _, n := range p.nodes {
				if n.pool != nil {
					kitems = append(kitems, nodeClaim(n))
				}
			}
			p.feature("nodeclaims")
		}
		out["karpenter.yaml"] = must(list(kitems))
	}
	if p.group != nil {
		out["eksctl.yaml"] = must(yaml.Marshal(p.clusterConfig()))
		if p.caDeployment {
			out["ca.yaml"] = must(yaml.Marshal(p.caDeploymentObject()))
			p.feature("ca-deployment")
		}
	}
	return out
}

// exportWork is a workload as exported: its controller (a Deployment
// with its ReplicaSet) and its pods where they run.
func (p *plan) exportWork(w *work) []any {
	if w.kind == "Pod" {
		return []any{p.barePod(w, true)}
	}
	items := []any{p.controller(w, true)}
	owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: w.kind, Name: w.name, UID: uid(w.kind, w.ns+"/"+w.name), Controller: ptr(true)}
	tmpl := w.template()
	switch w.kind {
	case "Deployment":
		rs := fmt.Sprintf("%s-%08x", w.name, hash32(w.ns+"/"+w.name))
		owner = metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: uid("ReplicaSet", w.ns+"/"+rs), Controller: ptr(true)}
		items = append(items, p.replicaSet(w, rs, tmpl))
	case "Job":
		owner.APIVersion = "batch/v1"
	}
	pod := func(name, node string, phase corev1.PodPhase) *corev1.Pod {
		pd := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: p.meta("Pod", w.ns, name, tmpl.Labels, true), Spec: tmpl.Spec}
		pd.Annotations = tmpl.Annotations
		pd.OwnerReferences = []metav1.OwnerReference{owner}
		pd.Spec.NodeName = node
		pd.Status.Phase = phase
		return pd
	}
	switch w.kind {
	case "DaemonSet":
		for i, n := range p.nodes {
			items = append(items, pod(fmt.Sprintf("%s-%05x", w.name, hash32(n.name)&0xfffff+uint32(i)), n.name, corev1.PodRunning))
		}
	case "StatefulSet":
		for o, n := range w.startOn {
			phase := corev1.PodRunning
			if n == "" {
				phase = corev1.PodPending
			}
			items = append(items, pod(fmt.Sprintf("%s-%d", w.name, o), n, phase))
		}
	default:
		prefix := owner.Name
		for i, n := range w.startOn {
			if n == "" && w.kind == "Job" {
				continue // the Job controller creates it
			}
			phase := corev1.PodRunning
			if n == "" {
				phase = corev1.PodPending
			}
			items = append(items, pod(fmt.Sprintf("%s-%05x", prefix, hash32(fmt.Sprint(prefix, i))&0xfffff), n, phase))
		}
		for i, n := range w.terminating {
			pd := pod(fmt.Sprintf("%s-t%04x", prefix, i), n, corev1.PodRunning)
			pd.DeletionTimestamp = ptr(metav1.NewTime(importedAt.Add(20 * time.Second)))
			pd.DeletionGracePeriodSeconds = ptr(int64(30))
			items = append(items, pd)
		}
	}
	return items
}

// importExports runs sim import on the exports, then writes into the
// Scenario document what an export cannot say (as a user edits it):
// the market, the seed, Karpenter's settings, the CA's flags when no
// Deployment gave them, the Jobs' run times.
func (p *plan) importExports(exports map[string][]byte) ([]byte, []string, error) {
	im := importer.New(importer.Options{Name: fmt.Sprintf("gen-%d", p.seed), Duration: p.duration.String()}, p.cat)
	names := make([]string, 0, len(exports))
	for name := range exports {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := im.Add(name, bytes.NewReader(exports[name])); err != nil {
			return nil, nil, fmt.Errorf("sim import: %w", err)
		}
	}
	var out bytes.Buffer
	err := im.Write(&out)
	var notices []string
	for _, n := range im.Notices() {
		notices = append(notices, n.String())
	}
	if err != nil {
		return nil, notices, fmt.Errorf("sim import: %w", err)
	}
	// The Scenario is the first document.
	text := out.String()
	start := strings.Index(text, "---\n") + len("---\n")
	end := strings.Index(text[start:], "\n---\n")
	if start < len("---\n") || end < 0 {
		return nil, notices, fmt.Errorf("sim import wrote no Scenario document followed by manifests")
	}
	end += start + 1
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(text[start:end]), &doc); err != nil {
		return nil, notices, err
	}
	spec, _ := doc["spec"].(map[string]any)
	if spec == nil {
		return nil, notices, fmt.Errorf("sim import's Scenario has no spec")
	}
	p.settings(spec)
	entries, _ := spec["workloads"].([]any)
	for _, w := range p.works {
		if w.runtime == nil {
			continue
		}
		for _, e := range entries {
			if m, ok := e.(map[string]any); ok && m["ref"] == w.ref() {
				m["runtime"] = w.runtime
			}
		}
	}
	edited, err := yaml.Marshal(doc)
	if err != nil {
		return nil, notices, err
	}
	return []byte(text[:start] + string(edited) + text[end:]), notices, nil
}
