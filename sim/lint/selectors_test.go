package lint

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSelectsNothing: a required anti-affinity term, a DoNotSchedule
// spread constraint or a required affinity term whose selector matches no
// workload's pods is flagged, as in kubernetes.io's ZooKeeper example
// (content/en/examples/application/zookeeper/zookeeper.yaml: its pods
// carry app.kubernetes.io/name=zk, its anti-affinity selects app In [zk],
// so all replicas may share a node). A selector matching the workload's
// own pods, or another workload's in the term's namespaces, is not.
func TestSelectsNothing(t *testing.T) {
	pool := nodePool("p", "{}", "", "") + nodeClass
	anti := func(sel string) string {
		return `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector: ` + sel + `
              topologyKey: kubernetes.io/hostname
`
	}
	r := check(t, header, pool,
		deployment("zk", "500m", anti("{matchExpressions: [{key: app, operator: In, values: [zookeeper]}]}")),
		deployment("self", "500m", anti("{matchLabels: {app: self}}")),
		deployment("other", "500m", anti("{matchLabels: {app: self}}")),
		deployment("spread", "500m", `      topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: sprd}}}
        - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: sprd}}}
`),
		deployment("near", "500m", `      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - {labelSelector: {matchLabels: {app: cache}}, topologyKey: topology.kubernetes.io/zone}
`),
		deployment("elsewhere", "500m", `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - {labelSelector: {matchLabels: {app: self}}, topologyKey: kubernetes.io/hostname, namespaces: [other-ns]}
`))
	fs := findingsOf(r, KindSelectsNothing)
	byWorkload := map[string]Finding{}
	for _, f := range fs {
		byWorkload[f.Workload] = f
	}
	require.Len(t, fs, 4, "%+v", fs)
	zk := byWorkload["Deployment/default/zk"]
	require.Equal(t, Warning, zk.Severity)
	require.Equal(t, "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector", zk.Path)
	require.Contains(t, zk.Message, "selects no pod in this scenario (app In [zookeeper]), not even its own (app=zk)")
	require.Contains(t, zk.Fix, "its own pods carry app=zk")
	sp := byWorkload["Deployment/default/spread"]
	require.Equal(t, "spec.template.spec.topologySpreadConstraints[0].labelSelector", sp.Path, "only the DoNotSchedule one")
	near := byWorkload["Deployment/default/near"]
	require.Equal(t, Error, near.Severity)
	require.Contains(t, near.Message, "never schedule")
	require.Contains(t, byWorkload, "Deployment/default/elsewhere", "app=self pods exist only in default, not in other-ns")
}
