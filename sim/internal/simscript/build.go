package simscript

import (
	"fmt"
	"strings"
	"testing/fstest"

	"go.yaml.in/yaml/v3"

	"github.com/clustersim/clustersim/sim/internal/testscript"
	// The in-tree components, registered as cmd/sim registers them.
	_ "github.com/clustersim/clustersim/sim/component/builtin"
	"github.com/clustersim/clustersim/sim/scenario"
)

// scenarioFile is the Scenario document's name in the script's file
// system; the blocks' manifests sit beside it.
const scenarioFile = "scenario.yaml"

// defaultNodeClass is added when the script gives no EC2NodeClass: the
// NodePools of most scripts refer to it and need nothing more of it.
const defaultNodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: sim}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: sim}}]
`

// scenarioFS lays the scenario out as a user would: the Scenario document
// including one manifest file per block.
func (s *Sim) scenarioFS() fstest.MapFS {
	fsys := fstest.MapFS{}
	spec := map[string]any{}
	for k, v := range s.spec {
		spec[k] = v
	}
	var include []string
	hasNodePool, hasNodeClass := false, false
	for _, f := range s.files {
		fsys[f.name] = &fstest.MapFile{Data: []byte(f.yaml)}
		include = append(include, f.name)
		kinds := kindsOf(f.yaml)
		hasNodePool = hasNodePool || kinds["NodePool"]
		hasNodeClass = hasNodeClass || kinds["EC2NodeClass"]
	}
	if hasNodePool && !hasNodeClass {
		fsys["default-nodeclass.yaml"] = &fstest.MapFile{Data: []byte(defaultNodeClass)}
		include = append(include, "default-nodeclass.yaml")
	}
	if len(include) > 0 {
		spec["include"] = include
	}
	if len(s.workloads) > 0 {
		spec["workloads"] = s.workloads
	}
	if _, set := spec["clusterAutoscaler"]; !set && len(s.autoscaled) > 0 {
		// A Cluster Autoscaler that discovers the node groups by the tag
		// eksctl gives every ASG of the cluster.
		var args []any
		for _, name := range s.autoscaled {
			args = append(args, "--node-group-auto-discovery=asg:tag=kubernetes.io/cluster/"+name)
		}
		spec["clusterAutoscaler"] = map[string]any{"args": args}
	}
	if len(s.marketEvents) > 0 {
		market := map[string]any{}
		if m, ok := spec["market"].(map[string]any); ok {
			for k, v := range m {
				market[k] = v
			}
		}
		events, _ := market["events"].([]any)
		market["events"] = append(append([]any(nil), events...), s.marketEvents...)
		spec["market"] = market
	}
	doc := map[string]any{
		"apiVersion": scenario.APIVersion,
		"kind":       scenario.Kind,
		"metadata":   map[string]any{"name": s.name},
		"spec":       spec,
	}
	fsys[scenarioFile] = &fstest.MapFile{Data: mustYAML(doc)}
	return fsys
}

// kindsOf returns the kinds of the documents in a manifest file (none
// when it does not parse: the loader reports that).
func kindsOf(manifests string) map[string]bool {
	kinds := map[string]bool{}
	dec := yaml.NewDecoder(strings.NewReader(manifests))
	for {
		var doc struct {
			Kind string `yaml:"kind"`
		}
		if err := dec.Decode(&doc); err != nil {
			return kinds
		}
		kinds[doc.Kind] = true
	}
}

func mustYAML(v any) []byte {
	out, err := yaml.Marshal(v)
	if err != nil {
		panic(err) // maps of strings, numbers and lists always marshal
	}
	return out
}

// addFile keeps a block's manifests in a file named after its line.
func (s *Sim) addFile(b *testscript.Block, content string) {
	s.files = append(s.files, manifestFile{name: fmt.Sprintf("line%d-%s.yaml", b.Line, b.Cmd), yaml: content})
}

func needInput(b *testscript.Block, what string) error {
	if strings.TrimSpace(b.Input) == "" {
		return fmt.Errorf("give %s as input lines before ----", what)
	}
	return nil
}

// scenario sets the Scenario's spec.
func (s *Sim) scenario(b *testscript.Block) error {
	if n, err := b.Int("seed", -1); err != nil {
		return err
	} else if n >= 0 {
		s.spec["seed"] = n
	}
	for _, key := range []string{"duration", "region"} {
		if v, ok := b.Lookup(key); ok {
			s.spec[key] = v
		}
	}
	if zones := b.List("zones"); zones != nil {
		s.spec["zones"] = zones
	}
	if strings.TrimSpace(b.Input) == "" {
		return nil
	}
	var extra map[string]any
	if err := yaml.Unmarshal([]byte(b.Input), &extra); err != nil {
		return fmt.Errorf("input: the Scenario's spec fields as YAML: %v", err)
	}
	for k, v := range extra {
		s.spec[k] = v
	}
	return nil
}

func (s *Sim) nodepool(b *testscript.Block) error {
	if err := needInput(b, "NodePool manifests"); err != nil {
		return err
	}
	s.addFile(b, b.Input)
	return nil
}

func (s *Sim) manifest(b *testscript.Block) error {
	if err := needInput(b, "Kubernetes manifests"); err != nil {
		return err
	}
	s.addFile(b, b.Input)
	return nil
}

// nodegroup takes an eksctl ClusterConfig, or node groups to wrap in one.
func (s *Sim) nodegroup(b *testscript.Block) error {
	if err := needInput(b, "an eksctl ClusterConfig or managed node groups"); err != nil {
		return err
	}
	var v any
	if err := yaml.Unmarshal([]byte(b.Input), &v); err != nil {
		return fmt.Errorf("input: %v", err)
	}
	if b.String("autoscaler", "") != "none" {
		s.autoscaled = append(s.autoscaled, "sim")
	}
	var groups []any
	switch g := v.(type) {
	case map[string]any:
		if _, ok := g["kind"]; ok {
			if meta, ok := g["metadata"].(map[string]any); ok && b.String("autoscaler", "") != "none" {
				if name, ok := meta["name"].(string); ok {
					s.autoscaled[len(s.autoscaled)-1] = name
				}
			}
			s.addFile(b, b.Input)
			return nil
		}
		groups = []any{g}
	case []any:
		groups = g
	default:
		return fmt.Errorf("input: an eksctl ClusterConfig, a node group or a list of them")
	}
	region, _ := s.spec["region"].(string)
	if region == "" {
		region = scenario.DefaultRegion
	}
	s.addFile(b, string(mustYAML(map[string]any{
		"apiVersion":        "eksctl.io/v1alpha5",
		"kind":              "ClusterConfig",
		"metadata":          map[string]any{"name": "sim", "region": region},
		"managedNodeGroups": groups,
	})))
	return nil
}

// exhaust adds a market event that changes the pools' state.
func (s *Sim) exhaust(b *testscript.Block) error {
	e, err := marketEvent(b)
	if err != nil {
		return err
	}
	e["state"] = b.String("state", "exhausted")
	for _, key := range []string{"reclaim", "rebalance"} {
		if f, err := b.Float(key, -1); err != nil {
			return err
		} else if f >= 0 {
			e[key] = f
		}
	}
	if v, ok := b.Lookup("for"); ok {
		e["for"] = v
	}
	s.marketEvents = append(s.marketEvents, e)
	return nil
}

// interrupt adds a market event that only reclaims instances.
func (s *Sim) interrupt(b *testscript.Block) error {
	e, err := marketEvent(b)
	if err != nil {
		return err
	}
	share, err := b.Float("share", 1)
	if err != nil {
		return err
	}
	e["reclaim"] = share
	if f, err := b.Float("rebalance", -1); err != nil {
		return err
	} else if f >= 0 {
		e["rebalance"] = f
	}
	s.marketEvents = append(s.marketEvents, e)
	return nil
}

// marketEvent reads the time and pools of a market event.
func marketEvent(b *testscript.Block) (map[string]any, error) {
	at, ok := b.Lookup("at")
	if !ok {
		return nil, fmt.Errorf("give the event's time: at=40m")
	}
	pools := map[string]any{}
	for arg, field := range map[string]string{"types": "instanceTypes", "families": "instanceFamilies", "zones": "zones"} {
		if l := b.List(arg); l != nil {
			pools[field] = l
		}
	}
	if ct, ok := b.Lookup("capacity-type"); ok {
		pools["capacityType"] = ct
	}
	return map[string]any{"at": at, "pools": pools}, nil
}
