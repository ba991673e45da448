package ca

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud/cloudtest"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/eviction"
	"github.com/clustersim/clustersim/sim/kubelet"
)

// Times of a scale-down case: the groups' nodes are up by sdBind, when
// the case's pods are bound; the kubelet starts them, and both planners
// run at sdPlan after the autoscaler's start.
const (
	sdBind = 5 * time.Second
	sdPlan = 9 * time.Second
)

// AnnotationSafeToEvict and AnnotationScaleDownDisabled are upstream's
// pod and node annotations (utils/drain, core/scaledown/eligibility).
const (
	AnnotationSafeToEvict       = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	AnnotationScaleDownDisabled = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
)

// OursSD is a scale-down case set up for our Cluster Autoscaler: its
// groups' nodes Ready, the case's pods bound and running. Pods are the
// same pods as Kubernetes objects (NodeName set), for upstream.
type OursSD struct {
	CA      *clusterautoscaler.Autoscaler
	Cluster *cluster.Cluster
	Eng     *engine.Engine
	Pods    []*corev1.Pod
	// PDBAllowed is the db PDB's disruptions allowed as our cluster
	// counts them (the disruption controller's status upstream reads).
	PDBAllowed int
}

// asCase is the case's groups as the scale-up harness' (one zone each).
func (c *SDCase) asCase() *Case {
	out := &Case{Name: c.Name}
	for _, g := range c.Groups {
		out.Groups = append(out.Groups, Group{Name: g.Name, InstanceType: g.InstanceType, Zones: Zones[:1],
			Min: g.Min, Max: g.Max, Size: len(g.Nodes), Labels: map[string]string{}})
	}
	return out
}

// SettingsScaleDown are the defaults, with the cool-downs off unless the
// case keeps them.
func SettingsScaleDown(c *SDCase) config.Settings {
	s := config.DefaultSettings()
	// Every group is the Cluster Autoscaler's, as in upstream's test
	// provider: --nodes=<min>:<max>:<name> each.
	for _, g := range c.Groups {
		s.Nodes = append(s.Nodes, config.NodesSpec{Min: g.Min, Max: g.Max, Name: g.Name})
	}
	if !c.Cooldown {
		s.ScaleDownDelayAfterAdd, s.ScaleDownDelayAfterDelete, s.ScaleDownDelayAfterFailure = 0, 0, 0
	}
	return s
}

// BuildOursScaleDown sets a scale-down case up for sim/clusterautoscaler.
func BuildOursScaleDown(cat *catalog.Catalog, c *SDCase) (*OursSD, error) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	kubelet.New(eng, cl, time.Second)
	groups, err := NodeGroups(cat, c.asCase())
	if err != nil {
		return nil, err
	}
	var pdbs []cluster.PDB
	if c.PDBMinAvailable >= 0 {
		sel, err := cluster.CompileLabelSelector(cl.Syms, &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}})
		if err != nil {
			return nil, err
		}
		pdbs = []cluster.PDB{{Namespace: cl.Syms.Intern("default"), Name: "db", Selector: sel, MinAvailable: &cluster.IntOrPercent{Value: int32(c.PDBMinAvailable)}}}
	}
	ev := eviction.New(eng, cl, pdbs)
	fc := cloudtest.New(eng, cloudtest.FlatPrice(0.1))
	fc.ReadyAfter = time.Second
	a, err := clusterautoscaler.New(clusterautoscaler.Deps{Engine: eng, Cluster: cl, Catalog: cat, Cloud: fc, Evictor: ev},
		clusterautoscaler.Config{Region: Region, Zones: Zones, NodeGroups: groups, Settings: SettingsScaleDown(c)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	eng.Run(engine.Time(sdBind))
	o := &OursSD{CA: a, Cluster: cl, Eng: eng}
	controller := true
	n := 0
	for _, g := range c.Groups {
		var ids []cluster.NodeID
		for i := range cl.Nodes {
			if cl.Nodes[i].OwnerName == g.Name {
				ids = append(ids, cluster.NodeID(i))
			}
		}
		if len(ids) != len(g.Nodes) {
			return nil, fmt.Errorf("%s: group %s has %d nodes, want %d", c.Name, g.Name, len(ids), len(g.Nodes))
		}
		for k, sn := range g.Nodes {
			id := ids[k]
			nd := &cl.Nodes[id]
			if nd.State != cluster.NodeReady {
				return nil, fmt.Errorf("%s: node %s is not Ready at %v", c.Name, nd.Name, sdBind)
			}
			if sn.NoScaleDown {
				cl.SetLabel(id, cl.Syms.Intern(clusterautoscaler.LabelScaleDownDisabled), cl.Syms.Intern("true"))
			}
			usedCPU, usedMem := int64(0), int64(0)
			for _, sp := range sn.Pods {
				cpu := sp.CPUMilli
				if sp.HalfCPU {
					cpu = nd.Allocatable[cluster.CPU] / 2
				}
				if usedCPU+cpu > nd.Allocatable[cluster.CPU] || usedMem+sp.MemMi<<20 > nd.Allocatable[cluster.Memory] {
					continue // the node is full: the pod is left out on both sides
				}
				usedCPU, usedMem = usedCPU+cpu, usedMem+sp.MemMi<<20
				p := &corev1.Pod{
					TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", sp.App, n), Namespace: "default",
						Labels: map[string]string{"app": sp.App}},
					Spec: corev1.PodSpec{NodeName: nd.Name, Containers: []corev1.Container{{Name: "c", Image: "busybox",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    *resource.NewMilliQuantity(cpu, resource.DecimalSI),
							corev1.ResourceMemory: *resource.NewQuantity(sp.MemMi<<20, resource.BinarySI),
						}}}}},
				}
				p.UID = types.UID(c.Name + "/" + p.Name)
				n++
				owned := true
				switch sp.Kind {
				case PodBare:
					owned = false
				case PodSafeBare:
					owned = false
					p.Annotations = map[string]string{AnnotationSafeToEvict: "true"}
				case PodKubeSystem:
					p.Namespace = "kube-system"
				case PodNotSafe:
					p.Annotations = map[string]string{AnnotationSafeToEvict: "false"}
				case PodLocalVolume:
					p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
				}
				workload := int32(-1)
				if owned {
					p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: sp.App,
						UID: types.UID(c.Name + "/rs/" + p.Namespace + "/" + sp.App), Controller: &controller}}
					workload = 0
				}
				spec, _, err := cluster.CompilePodSpec(cl.Syms, cl.Resources, cluster.PodSpecInput{Namespace: p.Namespace, Labels: p.Labels,
					Annotations: p.Annotations, Spec: &p.Spec})
				if err != nil {
					return nil, fmt.Errorf("%s: pod %s: %w", c.Name, p.Name, err)
				}
				pid := cl.CreatePod(cluster.Pod{Name: p.Name, Namespace: cl.Syms.Intern(p.Namespace), Spec: spec, Workload: workload})
				cl.Bind(pid, id)
				o.Pods = append(o.Pods, p)
			}
		}
	}
	eng.Run(engine.Time(sdPlan))
	for i := range pdbs {
		o.PDBAllowed = pdbs[i].DisruptionsAllowed(cl)
	}
	return o, nil
}

// Run plans one scale-down (Autoscaler.PlanScaleDown, side-effect free)
// and converts it: with a cool-down running nothing is deleted and the
// unneeded nodes get upstream's ScaleDownInCooldown.
func (o *OursSD) Run() ScaleDownPlan {
	p := o.CA.PlanScaleDown()
	name := func(id cluster.NodeID) string { return o.Cluster.Nodes[id].Name }
	out := ScaleDownPlan{Reasons: map[string]string{}}
	for _, id := range p.Unneeded {
		out.Unneeded = append(out.Unneeded, name(id))
	}
	if !p.InCooldown {
		for _, id := range p.ToDelete {
			out.ToDelete = append(out.ToDelete, name(id))
		}
	}
	for _, v := range p.Nodes {
		switch {
		case p.InCooldown && v.Unneeded:
			out.Reasons[v.Name] = ReasonInCooldown
		case v.Reason != "":
			out.Reasons[v.Name] = v.Reason
		}
	}
	out.sort()
	return out
}

// ReasonInCooldown is the scale-down status upstream gives a loop in a
// cool-down (scaledownstatus.ScaleDownInCooldown): no node is deleted.
const ReasonInCooldown = "ScaleDownInCooldown"
