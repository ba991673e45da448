package simulation_test

import (
	"bytes"
	"fmt"
	"maps"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/statedump"
	"github.com/clustersim/clustersim/sim/workload"
)

// requireSameSpec compiles a dumped pod as the scenario loader would and
// checks that it schedules as the original: the dump keeps what the
// simulator reads.
func requireSameSpec(t *testing.T, cl *cluster.Cluster, want *cluster.PodSpec, p *corev1.Pod) {
	t.Helper()
	labels := maps.Clone(p.Labels)
	delete(labels, appsv1.DefaultDeploymentUniqueLabelKey)
	spec := p.Spec.DeepCopy()
	spec.NodeName = want.NodeName
	got, _, err := cluster.CompilePodSpec(cl.Syms.Clone(), cl.Resources, cluster.PodSpecInput{Namespace: p.Namespace,
		Labels: labels, Annotations: p.Annotations, Spec: spec,
		Priority: func(string) (int32, bool, bool) { return want.Priority, want.PreemptNever, true }})
	require.NoError(t, err)
	w, g := *want, *got
	// Set by the controllers, not by the pod's own spec; a StatefulSet's
	// template claims are the pod's claim volumes TEMPLATE-POD, as the
	// StatefulSet controller writes them; the pin is the cluster's.
	g.DaemonSet, g.OwnerSelector = w.DaemonSet, w.OwnerSelector
	require.Equal(t, resolvedClaims(w.Claims, p.Name), resolvedClaims(g.Claims, p.Name), "pod %s/%s", p.Namespace, p.Name)
	g.Claims, g.Volume = w.Claims, w.Volume
	require.Equal(t, w, g, "pod %s/%s", p.Namespace, p.Name)
}

// resolvedClaims names the claims a pod of these refs uses: a template's
// TEMPLATE-POD, an ephemeral volume's by its volume and class.
func resolvedClaims(refs []cluster.ClaimRef, pod string) []string {
	var out []string
	for _, r := range refs {
		switch {
		case r.Template:
			out = append(out, r.Name+"-"+pod)
		case r.Ephemeral:
			out = append(out, fmt.Sprintf("ephemeral %s class=%q none=%v", r.Name, r.Class, r.NoClass))
		default:
			out = append(out, r.Name)
		}
	}
	return out
}

// nodeClaim is the part of a karpenter.sh/v1 NodeClaim the dump writes,
// decoded strictly: a field the dump writes that is not here fails.
type nodeClaim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Taints       []corev1.Taint `json:"taints"`
		Requirements []struct {
			corev1.NodeSelectorRequirement `json:",inline"`
			MinValues                      *int `json:"minValues"`
		} `json:"requirements"`
		NodeClassRef struct {
			Group string `json:"group"`
			Kind  string `json:"kind"`
			Name  string `json:"name"`
		} `json:"nodeClassRef"`
		// ExpireAfter as upstream's NodeClaimSpec has it: the NodeClaim's
		// own, from its creation.
		ExpireAfter string `json:"expireAfter"`
	} `json:"spec"`
	Status struct {
		ProviderID  string              `json:"providerID"`
		NodeName    string              `json:"nodeName"`
		Capacity    corev1.ResourceList `json:"capacity"`
		Allocatable corev1.ResourceList `json:"allocatable"`
		Conditions  []metav1.Condition  `json:"conditions"`
		// LastPodEventTime as upstream's NodeClaimStatus has it.
		LastPodEventTime metav1.Time `json:"lastPodEventTime"`
	} `json:"status"`
}

// Every embedded scenario, dumped at half its duration, gives a List
// whose every item decodes strictly with the k8s.io/api types (NodePools
// compile with our own karpenter apis to the pools the run had), and whose
// nodes and pods are the cluster's: names, capacity type, zone, instance
// type, owner, placement.
func TestWriteStateDecodesStrictly(t *testing.T) {
	for _, name := range embeddedScenarios(t) {
		t.Run(name, func(t *testing.T) {
			sc := load(t, name)
			checkDump(t, sc)
		})
	}
	// Every pod field the dump writes: spread, anti-affinity, Gt,
	// tolerationSeconds, priority, annotations, an extended resource.
	t.Run("dump-fields", func(t *testing.T) {
		sc, err := scenario.LoadFile("testdata/dump-fields.yaml")
		require.NoError(t, err)
		checkDump(t, sc)
	})
	// An adopted node annotated karpenter.sh/do-not-disrupt keeps it.
	t.Run("node-annotations", func(t *testing.T) {
		labels := map[string]string{"karpenter.sh/nodepool": "general-purpose", "karpenter.sh/capacity-type": "on-demand",
			"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"}
		node := fixtures.Node("ip-10-0-2-4.ec2.internal", "m5.2xlarge", "us-east-1a", "", `{cpu: 7910m, memory: 28000Mi, pods: "58"}`, labels)
		node = strings.Replace(node, "  name: ip-10-0-2-4.ec2.internal\n", "  name: ip-10-0-2-4.ec2.internal\n  annotations: {karpenter.sh/do-not-disrupt: \"true\"}\n", 1)
		doc := "apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: n}\nspec:\n  duration: 1h\n  zones: [us-east-1a]\n" +
			fixtures.GeneralPurposeNodePool + "      requirements:\n        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n" +
			fixtures.EC2NodeClassDemo + node
		sc, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(doc)}}, "s.yaml")
		require.NoError(t, err)
		require.Equal(t, "true", sc.Nodes[0].Annotations["karpenter.sh/do-not-disrupt"])
		checkDump(t, sc)
	})
	// A StatefulSet's readinessProbe that stands for its probes' delay.
	t.Run("readiness", func(t *testing.T) {
		sc, err := scenario.LoadFile("testdata/readiness.yaml")
		require.NoError(t, err)
		checkDump(t, sc)
	})
}

// volumesByName are the cluster's volumes by name.
func volumesByName(cl *cluster.Cluster) map[string]*cluster.Volume {
	out := map[string]*cluster.Volume{}
	for i := range cl.Volumes() {
		out[cl.Volumes()[i].Name] = &cl.Volumes()[i]
	}
	return out
}

func checkDump(t *testing.T, sc *scenario.Scenario) {
	t.Helper()
	s, err := simulation.Start(sc, simulation.Options{})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(sc.Duration/2))
	var buf bytes.Buffer
	require.NoError(t, s.WriteState(&buf))
	require.True(t, strings.HasPrefix(buf.String(), "apiVersion: v1\nitems:\n"))
	require.True(t, strings.HasSuffix(buf.String(), "kind: List\nmetadata:\n  resourceVersion: \"\"\n"))

	docs, err := manifest.ReadBytes("dump.yaml", buf.Bytes())
	require.NoError(t, err)
	cl := s.Cluster()
	wantNodes := map[string]*cluster.Node{}
	for i := range cl.Nodes {
		if n := &cl.Nodes[i]; n.State != cluster.NodeGone {
			wantNodes[n.Name] = n
		}
	}
	wantPods := map[string]string{} // namespace/name -> node ("" pending)
	running := map[string]bool{}
	specs := map[string]*cluster.PodSpec{}
	for i := range cl.Pods {
		p := &cl.Pods[i]
		if p.Phase.Terminal() {
			continue
		}
		node := ""
		if p.Phase.OnNode() {
			node = cl.Nodes[p.Node].Name
		}
		wantPods[cl.Syms.Name(p.Namespace)+"/"+p.Name] = node
		running[cl.Syms.Name(p.Namespace)+"/"+p.Name] = p.Phase == cluster.Running
		specs[cl.Syms.Name(p.Namespace)+"/"+p.Name] = p.Spec
	}
	gotNodes, gotPods := map[string]bool{}, map[string]string{}
	var pools []*manifest.Document
	claimExpiry := map[string][]string{} // a pool's NodeClaims' spec.expireAfter
	kinds := map[string]int{}
	for _, d := range docs {
		kinds[d.Kind]++
		switch d.Kind {
		case "Node":
			n := decodeAs[corev1.Node](t, d)
			want := wantNodes[n.Name]
			require.NotNil(t, want, "node %s is not in the cluster", n.Name)
			gotNodes[n.Name] = true
			require.Equal(t, want.InstanceType, n.Labels[corev1.LabelInstanceTypeStable])
			require.Equal(t, cl.Syms.Name(want.Zone), n.Labels[corev1.LabelTopologyZone])
			require.True(t, strings.HasPrefix(n.Spec.ProviderID, "aws:///"+cl.Syms.Name(want.Zone)+"/i-"), n.Spec.ProviderID)
			require.Len(t, strings.TrimPrefix(n.Spec.ProviderID, "aws:///"+cl.Syms.Name(want.Zone)+"/i-"), 17)
			require.Equal(t, want.Allocatable[cluster.CPU], n.Status.Allocatable.Cpu().MilliValue())
			require.Equal(t, want.Allocatable[cluster.Memory], n.Status.Allocatable.Memory().Value())
			require.GreaterOrEqual(t, n.Status.Capacity.Cpu().MilliValue(), n.Status.Allocatable.Cpu().MilliValue())
			require.GreaterOrEqual(t, n.Status.Capacity.Memory().Value(), n.Status.Allocatable.Memory().Value())
			require.Equal(t, sc.Epoch.Add(want.Launched).Unix(), n.CreationTimestamp.Unix())
			require.Len(t, n.Status.Conditions, 1)
			require.Equal(t, want.State == cluster.NodeReady, n.Status.Conditions[0].Status == corev1.ConditionTrue)
			v, ok := want.Annotations["karpenter.sh/do-not-disrupt"]
			got, gotOK := n.Annotations["karpenter.sh/do-not-disrupt"]
			require.Equal(t, ok, gotOK, "node %s: its do-not-disrupt annotation", n.Name)
			require.Equal(t, v, got)
			if want.Owner == cluster.RegisterOwner("karpenter") {
				require.Equal(t, want.OwnerName, n.Labels["karpenter.sh/nodepool"])
				// Upstream's cluster state counts a Karpenter node as
				// registered and initialized by these labels alone.
				ready := fmt.Sprint(want.State == cluster.NodeReady)
				if ready == "false" {
					ready = ""
				}
				require.Equal(t, ready, n.Labels["karpenter.sh/registered"], n.Name)
				require.Equal(t, ready, n.Labels["karpenter.sh/initialized"], n.Name)
			}
		case "Pod":
			p := decodeAs[corev1.Pod](t, d)
			key := p.Namespace + "/" + p.Name
			want, ok := wantPods[key]
			require.True(t, ok, "pod %s is not live in the cluster", key)
			gotPods[key] = p.Spec.NodeName
			require.Equal(t, want, p.Spec.NodeName, key)
			require.Equal(t, running[key], p.Status.Phase == corev1.PodRunning, key)
			require.Equal(t, running[key], p.Status.StartTime != nil, key)
			_, counted := p.Spec.Containers[0].Resources.Requests[corev1.ResourcePods]
			require.False(t, counted, "pods is not a request")
			requireSameSpec(t, cl, specs[key], &p)
		case "Deployment":
			o := decodeAs[appsv1.Deployment](t, d)
			require.NotNil(t, o.Spec.Replicas)
		case "ReplicaSet":
			o := decodeAs[appsv1.ReplicaSet](t, d)
			require.Len(t, o.OwnerReferences, 1)
			require.Equal(t, "Deployment", o.OwnerReferences[0].Kind)
		case "StatefulSet":
			o := decodeAs[appsv1.StatefulSet](t, d)
			var w *workload.Spec
			for i := range sc.Workloads {
				if sc.Workloads[i].Ref() == "StatefulSet/"+o.Namespace+"/"+o.Name {
					w = &sc.Workloads[i]
				}
			}
			require.NotNil(t, w, o.Name)
			policy := appsv1.ParallelPodManagement
			if w.OrderedReady {
				policy = appsv1.OrderedReadyPodManagement
			}
			require.Equal(t, policy, o.Spec.PodManagementPolicy, o.Name)
			require.Equal(t, int32(w.MinReady/time.Second), o.Spec.MinReadySeconds, o.Name)
		case "DaemonSet":
			decodeAs[appsv1.DaemonSet](t, d)
		case "Job":
			o := decodeAs[batchv1.Job](t, d)
			require.NotNil(t, o.Spec.Completions)
		case "NodeClaim":
			o := decodeAs[nodeClaim](t, d)
			want := wantNodes[o.Name]
			require.NotNil(t, want)
			require.Equal(t, cluster.RegisterOwner("karpenter"), want.Owner)
			require.Equal(t, want.OwnerName, o.Labels["karpenter.sh/nodepool"])
			require.Equal(t, "karpenter.sh/v1", o.APIVersion)
			require.NotEmpty(t, o.Spec.NodeClassRef.Name)
			require.True(t, strings.HasPrefix(o.Status.ProviderID, "aws:///"))
			// A registered node has its NodeClaim's nodeName, Ready or
			// never Ready.
			require.Equal(t, want.State == cluster.NodeReady || want.RegisteredNotReady(), o.Status.NodeName == o.Name)
			require.False(t, o.Status.Capacity.Cpu().IsZero())
			claimExpiry[o.Labels["karpenter.sh/nodepool"]] = append(claimExpiry[o.Labels["karpenter.sh/nodepool"]], o.Spec.ExpireAfter)
		case "NodePool":
			pools = append(pools, d)
		case "HorizontalPodAutoscaler":
			o := decodeAs[autoscalingv2.HorizontalPodAutoscaler](t, d)
			require.Positive(t, o.Spec.MaxReplicas)
		case "PodDisruptionBudget":
			o := decodeAs[policyv1.PodDisruptionBudget](t, d)
			require.True(t, (o.Spec.MinAvailable == nil) != (o.Spec.MaxUnavailable == nil))
		case "StorageClass":
			o := decodeAs[storagev1.StorageClass](t, d)
			require.NotEmpty(t, o.Provisioner)
		case "PersistentVolume":
			o := decodeAs[corev1.PersistentVolume](t, d)
			want := volumesByName(cl)[o.Name]
			require.NotNil(t, want, "volume %s is not in the cluster", o.Name)
			zone := ""
			if a := o.Spec.NodeAffinity; a != nil {
				zone = strings.Join(a.Required.NodeSelectorTerms[0].MatchExpressions[0].Values, ", ")
			} else {
				zone = o.Labels[corev1.LabelTopologyZone]
			}
			require.Equal(t, cluster.ZoneNames(cl.Syms, want.Zones), zone, o.Name)
			if want.Claim != cluster.NoClaim {
				require.Equal(t, cl.ClaimName(want.Claim), o.Spec.ClaimRef.Namespace+"/"+o.Spec.ClaimRef.Name)
			}
			require.Equal(t, want.Attach, o.Spec.CSI != nil && o.Spec.CSI.Driver == "ebs.csi.aws.com")
		case "PersistentVolumeClaim":
			o := decodeAs[corev1.PersistentVolumeClaim](t, d)
			var want *cluster.Claim
			for i, c := range cl.Claims() {
				if !c.Gone && cl.ClaimName(cluster.ClaimID(i)) == o.Namespace+"/"+o.Name {
					want = &cl.Claims()[i]
				}
			}
			require.NotNil(t, want, "claim %s/%s is not in the cluster", o.Namespace, o.Name)
			if want.Volume != cluster.NoVolume {
				require.Equal(t, cl.Volumes()[want.Volume].Name, o.Spec.VolumeName)
			} else {
				require.Equal(t, want.Want, o.Spec.VolumeName)
			}
		default:
			t.Fatalf("unexpected kind %s", d.Kind)
		}
	}
	require.Equal(t, len(wantNodes), len(gotNodes), "every live node is dumped")
	require.Equal(t, wantPods, gotPods, "every live pod is dumped where it is")
	require.Equal(t, len(kpConfig(sc).NodePools), kinds["NodePool"])
	require.Equal(t, len(sc.PDBs), kinds["PodDisruptionBudget"])
	liveClaims, liveVolumes := 0, 0
	for _, c := range cl.Claims() {
		if !c.Gone {
			liveClaims++
		}
	}
	for _, v := range cl.Volumes() {
		if v.Claim == cluster.NoClaim || !cl.Claims()[v.Claim].Gone {
			liveVolumes++
		}
	}
	require.Equal(t, liveClaims, kinds["PersistentVolumeClaim"], "every claim is dumped")
	require.Equal(t, liveVolumes, kinds["PersistentVolume"], "every volume is dumped")
	require.Equal(t, len(cl.StorageClasses()), kinds["StorageClass"])
	hpas := 0
	for i := range sc.Workloads {
		if sc.Workloads[i].Replicas.HPA != nil {
			hpas++
		}
	}
	require.Equal(t, hpas, kinds["HorizontalPodAutoscaler"])
	if len(pools) > 0 {
		res, err := apis.Compile(pools, apis.Env{Syms: sc.Syms.Clone(), Resources: sc.Resources, Catalog: sc.Catalog, Zones: sc.Zones})
		require.NoError(t, err)
		require.Len(t, res.NodePools, len(kpConfig(sc).NodePools))
		for i, got := range res.NodePools {
			want := kpConfig(sc).NodePools[i]
			require.Equal(t, want.Name, got.Name)
			require.Equal(t, want.Weight, got.Weight)
			require.Equal(t, want.Limits, got.Limits)
			require.Equal(t, want.ExpireAfter, got.ExpireAfter)
			// Its NodeClaims, launched in the run, were made with it.
			for _, e := range claimExpiry[got.Name] {
				if want.ExpireAfter == 0 {
					require.Equal(t, "Never", e)
				} else {
					require.Equal(t, statedump.Duration(want.ExpireAfter), e)
				}
			}
			require.Equal(t, want.NodeClassRef, got.NodeClassRef)
			require.Equal(t, want.Disruption.Policy, got.Disruption.Policy)
			require.Equal(t, want.Disruption.ConsolidateAfter, got.Disruption.ConsolidateAfter)
			require.Equal(t, len(want.Requirements), len(got.Requirements))
			require.Equal(t, len(want.Taints), len(got.Taints))
			require.Equal(t, fmt.Sprint(want.Requirements), fmt.Sprint(got.Requirements), "same symbols: the dump's syms are a clone")
		}
	}
}

// The same run dumps the same bytes (UIDs and hashes are stable), and a
// dump leaves the run it reads undisturbed.
func TestWriteStateIsDeterministic(t *testing.T) {
	dump := func() string {
		sc := load(t, "karpenter-mixed")
		var buf bytes.Buffer
		rep, err := simulation.Run(sc, simulation.Options{AtTime: sc.Duration / 2, At: func(s *simulation.Sim) error {
			return s.WriteState(&buf)
		}})
		require.NoError(t, err)
		plain, err := simulation.Run(load(t, "karpenter-mixed"), simulation.Options{})
		require.NoError(t, err)
		a, _ := rep.JSON()
		b, _ := plain.JSON()
		require.Equal(t, string(b), string(a))
		return buf.String()
	}
	first := dump()
	require.Contains(t, first, "kind: NodeClaim")
	require.Equal(t, first, dump())
}

func TestAtOutsideTheRun(t *testing.T) {
	sc := load(t, "static-burst")
	called := false
	_, err := simulation.Run(sc, simulation.Options{AtTime: sc.Duration + 1, At: func(*simulation.Sim) error { called = true; return nil }})
	require.EqualError(t, err, "time 2h0m0.000000001s is outside the scenario's duration 2h0m0s")
	require.False(t, called)
	_, err = simulation.Run(sc, simulation.Options{AtTime: sc.Duration, At: func(*simulation.Sim) error { return fmt.Errorf("disk full") }})
	require.EqualError(t, err, "disk full", "the hook's error ends the run")
}

// A terminating pod is dumped with a deletionTimestamp and its grace
// period, a launching node with Ready False and the not-ready taint (as
// found while hybrid-naive's spot capacity is reclaimed at 40m).
func TestWriteStateTerminatingAndLaunching(t *testing.T) {
	sc := load(t, "hybrid-naive")
	s, err := simulation.Start(sc, simulation.Options{})
	require.NoError(t, err)
	var terminating, launching bool
	for at := time.Duration(0); at <= sc.Duration && !(terminating && launching); at += 10 * time.Second {
		require.NoError(t, s.RunUntil(at))
		cl := s.Cluster()
		var pod string
		for i := range cl.Pods {
			if p := &cl.Pods[i]; p.Terminating && !p.Phase.Terminal() {
				pod = cl.Syms.Name(p.Namespace) + "/" + p.Name
				break
			}
		}
		var node string
		for i := range cl.Nodes {
			if cl.Nodes[i].State == cluster.NodeLaunching {
				node = cl.Nodes[i].Name
				break
			}
		}
		if (pod == "" || terminating) && (node == "" || launching) {
			continue
		}
		var buf bytes.Buffer
		require.NoError(t, s.WriteState(&buf))
		docs, err := manifest.ReadBytes("dump.yaml", buf.Bytes())
		require.NoError(t, err)
		for _, d := range docs {
			switch {
			case d.Kind == "Pod" && pod != "" && d.Namespace+"/"+d.Name == pod:
				p := decodeAs[corev1.Pod](t, d)
				require.NotNil(t, p.DeletionTimestamp)
				require.Equal(t, sc.Epoch.Add(at).Unix(), p.DeletionTimestamp.Unix())
				require.NotNil(t, p.DeletionGracePeriodSeconds)
				terminating = true
			case d.Kind == "Node" && node != "" && d.Name == node:
				n := decodeAs[corev1.Node](t, d)
				require.Equal(t, corev1.ConditionFalse, n.Status.Conditions[0].Status)
				require.Contains(t, n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
				launching = true
			}
		}
	}
	require.True(t, terminating, "a terminating pod was seen")
	require.True(t, launching, "a launching node was seen")
}

// decodeAs decodes d strictly into a T.
func decodeAs[T any](t *testing.T, d *manifest.Document) T {
	t.Helper()
	var o T
	require.NoError(t, d.Decode(&o))
	return o
}
