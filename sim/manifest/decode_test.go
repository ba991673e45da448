package manifest

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ownDoc stands for the simulator's own documents: plain structs with json
// tags, embedded TypeMeta, and a few self-decoding types.
type ownDoc struct {
	metav1.TypeMeta `json:",inline"`
	Count           uint                 `json:"count,omitempty"`
	Timeout         metav1.Duration      `json:"timeout,omitempty"`
	Ratio           float64              `json:"ratio,omitempty"`
	ByPort          map[int]string       `json:"byPort,omitempty"`
	Nodes           []ownNode            `json:"nodes,omitempty"`
	Level           Level                `json:"level,omitempty"`
	Color           Color                `json:"color,omitempty"`
	Extra           map[string]any       `json:"extra,omitempty"`
	Raw             json.RawMessage      `json:"raw,omitempty"`
	Ext             runtime.RawExtension `json:"ext,omitempty"`
	Retries         *int32               `json:"retries,omitempty"`
	Tags            []string             `json:"tags,omitempty"`
	Weights         [2]int               `json:"weights,omitempty"`
	Quoted          int                  `json:"quoted,omitempty,string"`
	ignored         int                  //nolint:unused // unexported: not a field
}

type ownNode struct {
	Name string `json:"name"`
	Zone string `json:"zone"`
}

// Level has its own UnmarshalJSON, like many API types.
type Level string

func (l *Level) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s != "quiet" && s != "normal" {
		return errors.New("level must be quiet or normal")
	}
	*l = Level(s)
	return nil
}

// Color decodes from text (UnmarshalText).
type Color struct{ R, G, B uint8 }

func (c *Color) UnmarshalText(b []byte) error {
	switch string(b) {
	case "red":
		*c = Color{R: 255}
	case "blue":
		*c = Color{B: 255}
	default:
		return errors.New("unknown color")
	}
	return nil
}

func readObject(t *testing.T, name string) *Document {
	t.Helper()
	docs, err := ReadFile(filepath.Join("testdata", "objects", name))
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	return docs[0]
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

func requireQty(t *testing.T, want string, got resource.Quantity) {
	t.Helper()
	w := q(want)
	require.Zero(t, w.Cmp(got), "want %s, got %s", want, got.String())
}

func TestDecodeDeployment(t *testing.T) {
	d := readObject(t, "deployment.yaml")
	require.Equal(t, "Deployment/shop/web", d.Ref())
	require.Equal(t, 2, d.Line) // after the comment
	var dep appsv1.Deployment
	require.NoError(t, d.Decode(&dep))

	require.Equal(t, "apps/v1", dep.APIVersion)
	require.Equal(t, "Deployment", dep.Kind)
	require.Equal(t, map[string]string{"app.kubernetes.io/name": "web", "tier": "frontend"}, dep.Labels)
	require.Equal(t, int32(3), *dep.Spec.Replicas)
	require.Equal(t, intstr.FromString("25%"), *dep.Spec.Strategy.RollingUpdate.MaxSurge)
	require.Equal(t, intstr.FromInt32(1), *dep.Spec.Strategy.RollingUpdate.MaxUnavailable)

	ps := dep.Spec.Template.Spec
	require.Equal(t, "high", ps.PriorityClassName)
	require.Equal(t, int64(30), *ps.TerminationGracePeriodSeconds)
	require.Equal(t, map[string]string{"kubernetes.io/os": "linux"}, ps.NodeSelector)
	require.Equal(t, []corev1.Toleration{
		{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
	}, ps.Tolerations)
	req := ps.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	require.Equal(t, []corev1.NodeSelectorRequirement{{
		Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large", "m5.xlarge"},
	}}, req.NodeSelectorTerms[0].MatchExpressions)
	anti := ps.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	require.Len(t, anti, 1)
	require.Equal(t, int32(100), anti[0].Weight)
	require.Equal(t, "kubernetes.io/hostname", anti[0].PodAffinityTerm.TopologyKey)
	require.Equal(t, []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "web"}},
	}}, ps.TopologySpreadConstraints)

	c := ps.Containers[0]
	require.Equal(t, "nginx:1.27", c.Image)
	require.Equal(t, int32(8080), c.Ports[0].ContainerPort)
	require.Equal(t, []corev1.EnvVar{{Name: "MODE", Value: "production"}}, c.Env)
	requireQty(t, "500m", c.Resources.Requests[corev1.ResourceCPU])
	requireQty(t, "512Mi", c.Resources.Requests[corev1.ResourceMemory])
	requireQty(t, "2", c.Resources.Limits[corev1.ResourceCPU])
	requireQty(t, "1Gi", c.Resources.Limits[corev1.ResourceMemory])
	require.Equal(t, intstr.FromString("http"), c.ReadinessProbe.HTTPGet.Port)
	require.Equal(t, int32(5), c.ReadinessProbe.PeriodSeconds)
}

func ptr[T any](v T) *T { return &v }

func TestDecodeJob(t *testing.T) {
	var job batchv1.Job
	require.NoError(t, readObject(t, "job.yaml").Decode(&job))
	require.Equal(t, int32(10), *job.Spec.Completions)
	require.Equal(t, int32(4), *job.Spec.Parallelism)
	require.Equal(t, int32(2), *job.Spec.BackoffLimit)
	require.Equal(t, int64(3600), *job.Spec.ActiveDeadlineSeconds)
	require.Equal(t, int32(600), *job.Spec.TTLSecondsAfterFinished)
	require.Equal(t, corev1.RestartPolicyNever, job.Spec.Template.Spec.RestartPolicy)
	c := job.Spec.Template.Spec.Containers[0]
	require.Equal(t, []string{"sh", "-c", "sleep 30"}, c.Command)
	requireQty(t, "1500m", c.Resources.Requests[corev1.ResourceCPU])
	requireQty(t, "256Mi", c.Resources.Requests[corev1.ResourceMemory])
}

func TestDecodePod(t *testing.T) {
	var p corev1.Pod
	require.NoError(t, readObject(t, "pod.yaml").Decode(&p))
	require.Equal(t, "default", p.Namespace)
	require.Equal(t, map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}, p.Annotations)
	requireQty(t, "250m", p.Spec.Overhead[corev1.ResourceCPU])
	requireQty(t, "100m", p.Spec.InitContainers[0].Resources.Requests[corev1.ResourceCPU])
	r := p.Spec.Containers[0].Resources
	requireQty(t, "250m", r.Requests[corev1.ResourceCPU]) // written as 0.25
	requireQty(t, "64Mi", r.Requests[corev1.ResourceMemory])
	requireQty(t, "1", r.Requests["nvidia.com/gpu"])
	requireQty(t, "1", r.Limits["nvidia.com/gpu"])
}

func TestDecodeNode(t *testing.T) {
	d := readObject(t, "node.yaml")
	require.Equal(t, "Node/ip-10-0-1-23.ec2.internal", d.Ref())
	var n corev1.Node
	require.NoError(t, d.Decode(&n))
	require.Equal(t, "spot", n.Labels["karpenter.sh/capacity-type"])
	require.Equal(t, "aws:///us-east-1a/i-0123456789abcdef0", n.Spec.ProviderID)
	require.Equal(t, []corev1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}}, n.Spec.Taints)
	requireQty(t, "4", n.Status.Capacity[corev1.ResourceCPU])
	requireQty(t, "16Gi", n.Status.Capacity[corev1.ResourceMemory])
	requireQty(t, "58", n.Status.Capacity[corev1.ResourcePods])
	requireQty(t, "100Gi", n.Status.Capacity[corev1.ResourceEphemeralStorage])
	requireQty(t, "3920m", n.Status.Allocatable[corev1.ResourceCPU])
	requireQty(t, "15155Mi", n.Status.Allocatable[corev1.ResourceMemory])
}

func TestDecodePodDisruptionBudget(t *testing.T) {
	docs, err := ReadFile(filepath.Join("testdata", "objects", "pdb.yaml"))
	require.NoError(t, err)
	require.Len(t, docs, 2)
	require.Equal(t, 12, docs[1].Line)

	var web, db policyv1.PodDisruptionBudget
	require.NoError(t, docs[0].Decode(&web))
	require.NoError(t, docs[1].Decode(&db))
	require.Equal(t, intstr.FromString("50%"), *web.Spec.MinAvailable)
	require.Nil(t, web.Spec.MaxUnavailable)
	require.Equal(t, map[string]string{"app.kubernetes.io/name": "web"}, web.Spec.Selector.MatchLabels)
	require.Equal(t, intstr.FromInt32(1), *db.Spec.MaxUnavailable)
	require.Equal(t, policyv1.AlwaysAllow, *db.Spec.UnhealthyPodEvictionPolicy)
	require.Equal(t, []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"db"}}}, db.Spec.Selector.MatchExpressions)
}

func TestDecodePriorityClass(t *testing.T) {
	var pc schedulingv1.PriorityClass
	require.NoError(t, readObject(t, "priorityclass.yaml").Decode(&pc))
	require.Equal(t, "high", pc.Name)
	require.Equal(t, int32(1000000), pc.Value)
	require.False(t, pc.GlobalDefault)
	require.Equal(t, corev1.PreemptLowerPriority, *pc.PreemptionPolicy)
	require.Equal(t, "For user-facing services.", pc.Description)
}

func TestDecodeStatefulSet(t *testing.T) {
	var ss appsv1.StatefulSet
	require.NoError(t, readObject(t, "statefulset.yaml").Decode(&ss))
	require.Equal(t, int32(3), *ss.Spec.Replicas)
	require.Equal(t, appsv1.ParallelPodManagement, ss.Spec.PodManagementPolicy)
	require.Equal(t, map[string]string{"app": "db"}, ss.Spec.Selector.MatchLabels)
	requireQty(t, "1", ss.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU])
	requireQty(t, "2Gi", ss.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory])
	vct := ss.Spec.VolumeClaimTemplates[0]
	require.Equal(t, "data", vct.Name)
	require.Equal(t, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, vct.Spec.AccessModes)
	require.Equal(t, "gp3", *vct.Spec.StorageClassName)
	requireQty(t, "100Gi", vct.Spec.Resources.Requests[corev1.ResourceStorage])
}

func TestDecodeFolder(t *testing.T) {
	// Every test object decodes into the type of its kind.
	docs, err := ReadPath(filepath.Join("testdata", "objects"))
	require.NoError(t, err)
	var refs []string
	for _, d := range docs {
		refs = append(refs, d.Ref())
		var out any
		switch d.Kind {
		case "Deployment":
			out = &appsv1.Deployment{}
		case "StatefulSet":
			out = &appsv1.StatefulSet{}
		case "Job":
			out = &batchv1.Job{}
		case "Pod":
			out = &corev1.Pod{}
		case "Node":
			out = &corev1.Node{}
		case "PodDisruptionBudget":
			out = &policyv1.PodDisruptionBudget{}
		case "PriorityClass":
			out = &schedulingv1.PriorityClass{}
		default:
			t.Fatalf("unexpected kind %s", d.Kind)
		}
		require.NoError(t, d.Decode(out), d.Ref())
	}
	require.Equal(t, []string{
		"Deployment/shop/web", "Job/batch/report", "Node/ip-10-0-1-23.ec2.internal",
		"PodDisruptionBudget/shop/web", "PodDisruptionBudget/shop/db", "Pod/default/debug",
		"PriorityClass/high", "StatefulSet/shop/db",
	}, refs)
}

func TestDecodeOwnDocument(t *testing.T) {
	in := `apiVersion: test/v1
kind: Own
count: 0x10
timeout: 1m30s
ratio: 1e-1
byPort:
  80: http
  443: https
nodes:
  - {name: a, zone: us-east-1a}
level: quiet
color: red
extra:
  nested: {list: [1, two, 3.5, true, null, 2024-05-01]}
  big: 12345678901234567890
raw: {free: [form]}
ext: {apiVersion: v1, kind: Pod}
retries: 3
tags: [a, b]
weights: [1, 2]
quoted: 42
`
	docs, err := ReadBytes("own.yaml", []byte(in))
	require.NoError(t, err)
	got := ownDoc{Count: 99, Ratio: 7}
	require.NoError(t, docs[0].Decode(&got))
	require.Equal(t, ownDoc{
		TypeMeta: metav1.TypeMeta{APIVersion: "test/v1", Kind: "Own"},
		Count:    16,
		Timeout:  metav1.Duration{Duration: 90 * time.Second},
		Ratio:    0.1,
		ByPort:   map[int]string{80: "http", 443: "https"},
		Nodes:    []ownNode{{Name: "a", Zone: "us-east-1a"}},
		Level:    "quiet",
		Color:    Color{R: 255},
		Extra: map[string]any{
			"nested": map[string]any{"list": []any{float64(1), "two", 3.5, true, nil, "2024-05-01"}},
			"big":    float64(12345678901234567890),
		},
		Raw:     json.RawMessage(`{"free":["form"]}`),
		Ext:     runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"Pod"}`)},
		Retries: ptr(int32(3)),
		Tags:    []string{"a", "b"},
		Weights: [2]int{1, 2},
		Quoted:  42,
	}, got)

	// Fields absent from the document keep the values set before Decode.
	docs, err = ReadBytes("own.yaml", []byte("apiVersion: test/v1\nkind: Own\nratio: 2\n"))
	require.NoError(t, err)
	got = ownDoc{Count: 99, Ratio: 7}
	require.NoError(t, docs[0].Decode(&got))
	require.Equal(t, uint(99), got.Count)
	require.Equal(t, 2.0, got.Ratio)
}

// jsonValue mirrors apiextensionsv1.JSON (that module is not a dependency):
// raw JSON kept as bytes, with its own UnmarshalJSON.
type jsonValue struct {
	Raw []byte `json:"-"`
}

func (j *jsonValue) UnmarshalJSON(b []byte) error {
	if string(b) != "null" {
		j.Raw = append([]byte(nil), b...)
	}
	return nil
}

// schema mirrors the recursive part of a CRD's openAPIV3Schema.
type schema struct {
	Type                   string            `json:"type,omitempty"`
	Properties             map[string]schema `json:"properties,omitempty"`
	Default                *jsonValue        `json:"default,omitempty"`
	Maximum                *float64          `json:"maximum,omitempty"`
	XPreserveUnknownFields *bool             `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
}

type crdDoc struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Group    string `json:"group"`
		Versions []struct {
			Name   string `json:"name"`
			Schema struct {
				OpenAPIV3Schema *schema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

func TestDecodeSchemaWithRawJSON(t *testing.T) {
	// JSON-valued fields (default values) go through their own
	// UnmarshalJSON; the schema around them is still strict.
	in := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: nodepools.karpenter.sh
spec:
  group: karpenter.sh
  versions:
    - name: v1
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-preserve-unknown-fields: true
              properties:
                weight: {type: integer, default: 10, maximum: 100}
                taints:
                  type: array
                  default: [{key: a, effect: NoSchedule}]
`
	docs, err := ReadBytes("crd.yaml", []byte(in))
	require.NoError(t, err)
	var crd crdDoc
	require.NoError(t, docs[0].Decode(&crd))
	props := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	require.True(t, *props.XPreserveUnknownFields)
	require.JSONEq(t, "10", string(props.Properties["weight"].Default.Raw))
	require.JSONEq(t, `[{"key":"a","effect":"NoSchedule"}]`, string(props.Properties["taints"].Default.Raw))
	require.Equal(t, 100.0, *props.Properties["weight"].Maximum)

	docs, err = ReadBytes("crd.yaml", []byte(in+"                  typo: 1\n"))
	require.NoError(t, err)
	err = docs[0].Decode(&crd)
	require.EqualError(t, err, `crd.yaml:21: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.taints.typo: unknown field "typo"; did you mean "type"?`)
}

func TestDecodeMergeKeys(t *testing.T) {
	in := `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - &base
      name: a
      image: busybox
      resources:
        requests: {cpu: 100m}
    - <<: *base
      name: b
    - <<: [{name: c, image: alpine}, *base]
`
	docs, err := ReadBytes("merge.yaml", []byte(in))
	require.NoError(t, err)
	var p corev1.Pod
	require.NoError(t, docs[0].Decode(&p))
	require.Len(t, p.Spec.Containers, 3)
	require.Equal(t, "b", p.Spec.Containers[1].Name)
	require.Equal(t, "busybox", p.Spec.Containers[1].Image)
	requireQty(t, "100m", p.Spec.Containers[1].Resources.Requests[corev1.ResourceCPU])
	require.Equal(t, "c", p.Spec.Containers[2].Name)
	require.Equal(t, "alpine", p.Spec.Containers[2].Image)
	require.Equal(t, 14, docs[0].LineOf("spec.containers[2]"))
}

func TestDecodeJSONDocument(t *testing.T) {
	in := `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "web", "labels": {"a": "b"}},
  "spec": {
    "replicas": 2,
    "template": {"spec": {"containers": [{"name": "w", "image": "x",
      "resources": {"requests": {"cpu": 0.5, "memory": "1Gi"}}}]}}
  }
}`
	docs, err := ReadBytes("d.json", []byte(in))
	require.NoError(t, err)
	var dep appsv1.Deployment
	require.NoError(t, docs[0].Decode(&dep))
	require.Equal(t, int32(2), *dep.Spec.Replicas)
	requireQty(t, "500m", dep.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU])

	docs, err = ReadBytes("d.json", []byte(`{"apiVersion": "apps/v1", "kind": "Deployment",
  "spec": {"replicas": "2",
    "paused": "true"}}`))
	require.NoError(t, err)
	err = docs[0].Decode(&dep)
	require.EqualError(t, err, `d.json:2: spec.replicas: cannot use "2" as an integer (want a whole number, e.g. 3); remove the quotes`+"\n"+
		`d.json:3: spec.paused: cannot use "true" as a boolean (want true or false); remove the quotes`)
}

func TestDecodeHandBuiltDocument(t *testing.T) {
	// A Document may be built by hand (the lead's code may do so for
	// generated objects); Decode still checks duplicates and never panics.
	var d Document
	require.Error(t, d.Decode(&corev1.Pod{}))
	docs, err := ReadBytes("x.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n"))
	require.NoError(t, err)
	n := docs[0].Node
	n.Content = append(n.Content, n.Content[0], n.Content[1]) // apiVersion again
	err = (&Document{File: "x.yaml", Node: n}).Decode(&corev1.Pod{})
	require.EqualError(t, err, `x.yaml:1: apiVersion: duplicate key "apiVersion" (first defined on line 1); remove one of them: only one value can be kept, the other would be silently lost`)
}

func TestJSONMatchesEncodingJSON(t *testing.T) {
	// Whatever JSON we accept decodes to exactly what encoding/json makes
	// of it.
	inputs := []string{
		`{"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "x\/y\u00e9\ud83d\ude00\n\t\"q\"", "b": ""}}`,
		`{"apiVersion": "v1", "kind": "X", "t": true, "f": false, "n": null, "list": [true, false, null, [], {}]}`,
		`{"apiVersion": "v1", "kind": "X", "nums": [0, -0, 1, -1, 1.5, -2.25e-3, 1E10, 12345678901234567890, 1e300]}`,
		"{\"apiVersion\":\"v1\",\r\n\t\"kind\":\"X\",\"s\":\"<&>\",\"u\":\"\\u0000\\u001f\"}",
	}
	for _, in := range inputs {
		docs, err := ReadBytes("x.json", []byte(in))
		require.NoError(t, err, in)
		require.Len(t, docs, 1)
		var got, want map[string]any
		require.NoError(t, docs[0].Decode(&got))
		require.NoError(t, json.Unmarshal([]byte(in), &want))
		require.Equal(t, want, got, in)
	}

	for in, msg := range map[string]string{
		`{"apiVersion": "v1", "kind": "X", "n": 1e400}`:            "x.json:1: n: cannot use 1e400 as a number (want e.g. 0.5)",
		`{"apiVersion": "v1", "kind": "X", "s": "a` + "\t" + `b"}`: "x.json:1: invalid JSON: a string cannot contain a raw control character (write line breaks as \\n and tabs as \\t)",
		`{"apiVersion": "v1", "kind": "X", "s": tru}`:              "x.json:1: invalid JSON: unexpected word, expected a value (strings need double quotes)",
		`{"apiVersion": "v1", "kind": "X", "s": "\x"}`:             `x.json:1: invalid JSON: invalid string: invalid character 'x' in string escape code`,
		`{"apiVersion": "v1", "kind": "X", "s": 01}`:               `x.json:1: invalid JSON: invalid number "01"`,
	} {
		docs, err := ReadBytes("x.json", []byte(in))
		if err == nil {
			var m map[string]any
			err = docs[0].Decode(&m)
		}
		require.EqualError(t, err, msg, in)
	}
}

func TestDecodeResourceNames(t *testing.T) {
	in := `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: a
      resources:
        requests:
          cpu: 1
          memroy: 1Gi
          hugepages-2Mi: 100Mi
          example.com/foo: 1
        limits:
          gpu: 1
`
	docs, err := ReadBytes("p.yaml", []byte(in))
	require.NoError(t, err)
	err = docs[0].Decode(&corev1.Pod{})
	require.EqualError(t, err, `p.yaml:10: spec.containers[0].resources.requests.memroy: unknown resource name "memroy"; did you mean "memory"?`+"\n"+
		`p.yaml:14: spec.containers[0].resources.limits.gpu: unknown resource name "gpu"; GPUs are extended resources named with their vendor's domain, e.g. nvidia.com/gpu`)

	quota := "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q}\nspec:\n  hard: {pods: 10, requests.cpu: 4, limits.memory: 8Gi, count/deployments.apps: 2, requests.nvidia.com/gpu: 1}\n"
	docs, err = ReadBytes("q.yaml", []byte(quota))
	require.NoError(t, err)
	var rq corev1.ResourceQuota
	require.NoError(t, docs[0].Decode(&rq))
	require.Len(t, rq.Spec.Hard, 5)
}

func TestDecodeSecret(t *testing.T) {
	docs, err := ReadBytes("s.yaml", []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  password: aHVudGVyMg==\nstringData:\n  user: admin\n"))
	require.NoError(t, err)
	var s corev1.Secret
	require.NoError(t, docs[0].Decode(&s))
	require.Equal(t, []byte("hunter2"), s.Data["password"])
	require.Equal(t, "admin", s.StringData["user"])
}
