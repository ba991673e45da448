package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/workload"
)

// phpApache is kubernetes/website content/en/examples/application/php-apache.yaml
// (the Deployment; its Service is left out) and
// content/en/examples/application/hpa/php-apache.yaml (the HPA, in the
// JSON-like flow style it is written in).
const phpApache = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: php-apache
spec:
  selector:
    matchLabels:
      app.kubernetes.io/name: php-apache
  template:
    metadata:
      labels:
        app.kubernetes.io/name: php-apache
    spec:
      containers:
      - name: php-apache
        image: registry.k8s.io/hpa-example
        ports:
        - containerPort: 80
        resources:
          limits:
            cpu: 500m
          requests:
            cpu: 200m
---
{
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: {
    name: "php-apache",
  },
  spec: {
    scaleTargetRef: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "php-apache",
    },
    minReplicas: 1,
    maxReplicas: 10,
    metrics: [{
      type: "Resource",
      resource: {
        name: "cpu",
        target: {
          type: "Utilization",
          averageUtilization: 50,
        },
      },
    }],
  },
}
`

func withWorkloads(entries string) string {
	return strings.Replace(minimal, "duration: 1h", "duration: 1h\n  workloads:\n"+entries, 1)
}

func TestHPABoundsReplicaSteps(t *testing.T) {
	sc, err := loadDoc(t, withWorkloads("  - ref: Deployment/php-apache\n    replicas: [{at: 0s, count: 15}, {at: 30m, count: 0}, {at: 40m, count: 4}]\n")+"---\n"+phpApache)
	require.NoError(t, err)
	require.Equal(t, []workload.Step{{At: 0, Count: 10}, {At: 30 * time.Minute, Count: 0}, {At: 40 * time.Minute, Count: 4}},
		sc.Workloads[0].Replicas.Steps, "15 is held at maxReplicas; 0 stays 0: a workload scaled to zero turns its HPA off")
	w := warnings(sc)
	require.Contains(t, w, "s.yaml:8: spec.workloads[0].replicas[0].count: 15 replicas is outside HorizontalPodAutoscaler/default/php-apache's minReplicas-maxReplicas 1-10: the HPA sets 10")
	require.Contains(t, w, "HorizontalPodAutoscaler/default/php-apache bounds Deployment/default/php-apache to 1-10 replicas: the scenario's replica steps are held within them")
	require.NotContains(t, w, "HorizontalPodAutoscaler object(s) skipped")
	require.Equal(t, int64(20), sc.EstimatedPods, "the peak is the bound one")
}

func TestHPAWithoutTiming(t *testing.T) {
	hpa := strings.NewReplacer("minReplicas: 1", "minReplicas: 3", "name: php-apache\nspec:\n  selector", "name: php-apache\nspec:\n  replicas: 2\n  selector").Replace(phpApache)
	sc, err := loadDoc(t, minimal+"---\n"+hpa)
	require.NoError(t, err)
	require.Equal(t, []workload.Step{{At: 0, Count: 3}}, sc.Workloads[0].Replicas.Steps)
	w := warnings(sc)
	require.Contains(t, w, "s.yaml:12: spec.replicas: 2 replicas is outside HorizontalPodAutoscaler/default/php-apache's 3-10: the HPA sets 3")
	require.Contains(t, w, "s.yaml:38: spec: HorizontalPodAutoscaler/default/php-apache bounds Deployment/default/php-apache to 3-10 replicas: the replicas stay at 3; its metrics are not simulated")

	// spec.replicas left out (the usual way with an HPA): raised to
	// minReplicas without a word.
	sc, err = loadDoc(t, minimal+"---\n"+strings.Replace(phpApache, "minReplicas: 1", "minReplicas: 3", 1))
	require.NoError(t, err)
	require.Equal(t, []workload.Step{{At: 0, Count: 3}}, sc.Workloads[0].Replicas.Steps)
	require.NotContains(t, warnings(sc), "spec.replicas")
}

func TestHPABoundsDailyCurve(t *testing.T) {
	sc, err := loadDoc(t, withWorkloads("  - {ref: Deployment/php-apache, daily: {min: 0, max: 40, peakAt: 14h}}\n")+"---\n"+phpApache)
	require.NoError(t, err)
	d := sc.Workloads[0].Replicas.Daily
	require.Equal(t, 1.0, d.Min)
	require.Equal(t, 10.0, d.Max)
	require.Contains(t, warnings(sc), "spec.workloads[0].daily.max: 40 replicas is outside HorizontalPodAutoscaler/default/php-apache's minReplicas-maxReplicas 1-10: the HPA sets 10")
}

func TestHPAFillsTheSyntheticLoadHPA(t *testing.T) {
	sc, err := loadDoc(t, withWorkloads("  - {ref: Deployment/php-apache, hpa: {loadCores: {min: 0.2, max: 1.5}}}\n")+"---\n"+phpApache)
	require.NoError(t, err)
	h := sc.Workloads[0].Replicas.HPA
	require.NotNil(t, h)
	require.Equal(t, int32(1), h.Min)
	require.Equal(t, int32(10), h.Max)
	require.Equal(t, 0.5, h.Target, "averageUtilization 50 from the manifest")
	require.Equal(t, workload.DefaultHPAStabilization, h.Stabilization)

	sc, err = loadDoc(t, withWorkloads("  - {ref: Deployment/php-apache, hpa: {maxReplicas: 20, loadCores: {min: 0.2, max: 1.5}}}\n")+"---\n"+
		strings.Replace(phpApache, "    metrics: [", "    behavior: {scaleDown: {stabilizationWindowSeconds: 60}},\n    metrics: [", 1))
	require.NoError(t, err)
	h = sc.Workloads[0].Replicas.HPA
	require.Equal(t, int32(20), h.Max, "the scenario's value wins")
	require.Equal(t, time.Minute, h.Stabilization)
	require.Contains(t, warnings(sc), "spec.workloads[0].hpa.maxReplicas: 20 differs from HorizontalPodAutoscaler/default/php-apache's 10: the scenario's value is used")
}

// autoscaling/v1 is still served; its targetCPUUtilizationPercentage
// defaults to 80.
func TestHPAv1(t *testing.T) {
	v1 := `---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: php-apache}
  minReplicas: 2
  maxReplicas: 6
`
	deploy := phpApache[:strings.Index(phpApache, "---")]
	sc, err := loadDoc(t, withWorkloads("  - {ref: Deployment/php-apache, hpa: {loadCores: {min: 0.2, max: 1.5}}}\n")+"---\n"+deploy+v1)
	require.NoError(t, err)
	h := sc.Workloads[0].Replicas.HPA
	require.Equal(t, int32(2), h.Min)
	require.Equal(t, int32(6), h.Max)
	require.Equal(t, 0.8, h.Target)
}

func TestHPAIgnored(t *testing.T) {
	deploy := phpApache[:strings.Index(phpApache, "---")]
	hpa := func(name, target string) string {
		return "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: " + name + "}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: " + target + "}\n  maxReplicas: 2\n"
	}
	sc, err := loadDoc(t, minimal+"---\n"+deploy+hpa("a", "php-apache")+hpa("b", "php-apache")+hpa("c", "web"))
	require.NoError(t, err)
	require.Equal(t, []workload.Step{{At: 0, Count: 1}}, sc.Workloads[0].Replicas.Steps)
	w := warnings(sc)
	require.Contains(t, w, "spec.scaleTargetRef: HorizontalPodAutoscaler/default/b and HorizontalPodAutoscaler/default/a (s.yaml:31) both scale Deployment/default/php-apache: the HPA controller acts on neither (AmbiguousSelector)")
	require.Contains(t, w, "spec.scaleTargetRef: HorizontalPodAutoscaler/default/c scales Deployment/default/web, which is not in the scenario; ignored")
}

func TestHPABadInput(t *testing.T) {
	deploy := phpApache[:strings.Index(phpApache, "---")]
	for _, tc := range []struct{ name, doc, want string }{
		{"max below min", minimal + "---\n" + strings.Replace(phpApache, "maxReplicas: 10", "maxReplicas: 0", 1),
			"s.yaml:44: spec.maxReplicas: maxReplicas must be at least 1; give the most replicas the HPA may set, e.g. maxReplicas: 10"},
		{"min 0", minimal + "---\n" + strings.Replace(phpApache, "minReplicas: 1", "minReplicas: 0", 1),
			"s.yaml:43: spec.minReplicas: minReplicas 0 is below 1; use 1 or more"},
		{"removed version", minimal + "---\n" + strings.Replace(phpApache, `"autoscaling/v2"`, `"autoscaling/v2beta2"`, 1),
			"apiVersion: autoscaling/v2beta2 is not a served version of HorizontalPodAutoscaler; autoscaling/v2beta1 and v2beta2 were removed in Kubernetes 1.25 and 1.26; use apiVersion: autoscaling/v2"},
		{"no target", minimal + "---\n" + deploy + "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: x}\nspec: {maxReplicas: 3}\n",
			"spec.scaleTargetRef: scaleTargetRef needs kind and name"},
	} {
		_, err := loadDoc(t, tc.doc)
		require.Error(t, err, tc.name)
		require.Contains(t, err.Error(), tc.want, tc.name)
	}
}
