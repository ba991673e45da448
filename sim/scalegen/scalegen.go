// Package scalegen writes scale scenarios: a cluster of N nodes over three
// zones, with Cluster Autoscaler node groups for services and a Karpenter
// spot NodePool for batch, a churn of Deployments (daily cycles) and Jobs
// (Poisson arrivals) that keeps about M pods resident, and the stochastic
// spot market on. They are generated rather than stored, so any size can
// be benchmarked (sim gen scale, make bench-scale).
package scalegen

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/dist"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
)

// Params size the scenario.
type Params struct {
	Nodes int // about this many nodes at the daily mean
	Pods  int // about this many pods resident
	Days  int
	Seed  uint64
}

// Sizes of the generated workloads, chosen so pods pack densely on the
// node type: 30 pods of 250m / 1 GiB fit an m5.2xlarge (8 vCPU, 32 GiB).
const (
	podCPU         = "250m"
	podMemory      = "1Gi"
	podsPerNode    = 30
	serviceShare   = 0.8 // of resident pods in Deployments; the rest in Jobs
	podsPerService = 400
	jobTemplates   = 10
	jobParallelism = 50
	jobMedianHours = 12.0
	jobP90Hours    = 18.0
	dailyAmplitude = 0.3 // services swing +-30% around their mean
)

// Generate returns the scenario as YAML.
func Generate(p Params) (string, error) {
	if p.Nodes < 10 || p.Pods < 100 || p.Days < 1 {
		return "", fmt.Errorf("need at least 10 nodes, 100 pods and 1 day (got %d, %d, %d)", p.Nodes, p.Pods, p.Days)
	}
	if p.Pods > p.Nodes*100 {
		return "", fmt.Errorf("%d pods on %d nodes is more than 100 pods per node", p.Pods, p.Nodes)
	}
	var b strings.Builder
	servicePods := float64(p.Pods) * serviceShare
	services := max(3, int(math.Round(servicePods/podsPerService)))
	perService := servicePods / float64(services)
	jobPods := float64(p.Pods) - servicePods
	// Resident job pods = arrivals/h x parallelism x mean run time (h).
	runtime, err := dist.NewLogNormal(time.Duration(jobMedianHours*float64(time.Hour)), time.Duration(jobP90Hours*float64(time.Hour)))
	if err != nil {
		return "", err
	}
	meanHours := runtime.Mean().Hours()
	ratePerTemplate := jobPods / float64(jobTemplates) / (jobParallelism * meanHours)
	serviceNodes := int(math.Ceil(servicePods / podsPerNode))
	perZone := max(1, serviceNodes/3)

	fmt.Fprintf(&b, `# scale-%dn-%dp-%dd: a generated scale scenario (sim gen scale).
# About %d nodes and %d resident pods over %d days: %d services on Cluster
# Autoscaler node groups with a daily cycle, %d Job templates on a Karpenter
# spot NodePool with Poisson arrivals, the stochastic spot market on.
apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata:
  name: scale-%dn-%dp-%dd
  annotations:
    description: Generated scale scenario, %d nodes, %d pods, %d days.
spec:
  seed: %d
  duration: %dd
  region: us-east-1
  zones: [us-east-1a, us-east-1b, us-east-1c]
  strandedAfter: 10m
  clusterAutoscaler:
    args:
      - "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled"
      - --expander=least-waste
      - --max-nodes-per-scaleup=1000
  karpenter:
    interruptionQueue: true
  market:
    model: stochastic
  workloads:
`, p.Nodes, p.Pods, p.Days, p.Nodes, p.Pods, p.Days, services, jobTemplates, p.Nodes, p.Pods, p.Days, p.Nodes, p.Pods, p.Days, p.Seed, p.Days)
	for i := range services {
		lo := int(math.Round(perService * (1 - dailyAmplitude)))
		hi := int(math.Round(perService * (1 + dailyAmplitude)))
		peak := 9 + i%10 // peaks spread over the working day
		fmt.Fprintf(&b, "    - {ref: Deployment/services/svc-%d, daily: {min: %d, max: %d, peakAt: %dh, every: 15m}}\n", i, lo, hi, peak)
	}
	for i := range jobTemplates {
		fmt.Fprintf(&b, "    - ref: Job/batch/job-%d\n      arrivals: {poisson: {ratePerHour: %.4f, amplitude: 0.5, peakAt: %dh}}\n      runtime: {lognormal: {median: %dh, p90: %dh}}\n",
			i, ratePerTemplate, 10+i%8, int(jobMedianHours), int(jobP90Hours))
	}
	fmt.Fprintf(&b, `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: scale, region: us-east-1}
managedNodeGroups:
`)
	for _, z := range []string{"a", "b", "c"} {
		fmt.Fprintf(&b, `  - name: general-%s
    instanceType: m5.2xlarge
    availabilityZones: [us-east-1%s]
    minSize: %d
    maxSize: %d
    desiredCapacity: %d
    labels: {role: general}
    tags: {k8s.io/cluster-autoscaler/enabled: "true"}
`, z, z, perZone/2, p.Nodes, perZone)
	}
	b.WriteString(`---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: batch-spot}
spec:
  template:
    metadata:
      labels: {role: batch}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [c5, c6i, m5, m6i, r5, r6i]}
        - {key: karpenter.k8s.aws/instance-size, operator: In, values: [2xlarge, 4xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
      taints: [{key: role, value: batch, effect: NoSchedule}]
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 5m
` + fixtures.EC2NodeClassDemo)
	for i := range services {
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: svc-%d, namespace: services}
spec:
  selector: {matchLabels: {app: svc-%d}}
  template:
    metadata: {labels: {app: svc-%d}}
    spec:
      nodeSelector: {role: general}
      containers: [{name: c, image: x, resources: {requests: {cpu: %s, memory: %s}}}]
`, i, i, i, podCPU, podMemory)
	}
	for i := range jobTemplates {
		fmt.Fprintf(&b, `---
apiVersion: batch/v1
kind: Job
metadata: {name: job-%d, namespace: batch}
spec:
  parallelism: %d
  completions: %d
  podFailurePolicy:
    rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget}]}]
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {role: batch}
      tolerations: [{key: role, value: batch, effect: NoSchedule}]
      containers: [{name: c, image: x, resources: {requests: {cpu: %s, memory: %s}}}]
`, i, jobParallelism, jobParallelism, podCPU, podMemory)
	}
	return b.String(), nil
}
