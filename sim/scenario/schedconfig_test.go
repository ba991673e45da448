package scenario

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/scheduler"
)

const schedConfig = `---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: /etc/kubernetes/scheduler.conf}
leaderElection: {leaderElect: true}
percentageOfNodesToScore: 30
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
profiles:
  - schedulerName: default-scheduler
  - schedulerName: bin-packing
    plugins:
      score:
        disabled: [{name: NodeResourcesBalancedAllocation}]
        enabled: [{name: NodeResourcesFit, weight: 5}]
      postFilter:
        disabled: [{name: DefaultPreemption}]
      filter:
        enabled: [{name: VolumeRestrictions}]
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources: [{name: cpu, weight: 3}, {name: memory, weight: 1}]
      - name: PodTopologySpread
        args:
          defaultingType: List
          defaultConstraints:
            - {maxSkew: 2, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}
`

func loadDoc(t *testing.T, doc string) (*Scenario, error) {
	t.Helper()
	return LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(doc)}}, "s.yaml")
}

func TestKubeSchedulerConfiguration(t *testing.T) {
	sc, err := loadDoc(t, minimal+schedConfig)
	require.NoError(t, err)
	require.Len(t, sc.SchedulerProfiles, 2)
	def, bp := sc.SchedulerProfiles[0], sc.SchedulerProfiles[1]
	require.Equal(t, "default-scheduler", def.SchedulerName)
	require.Equal(t, int32(30), def.PercentageOfNodesToScore, "the global setting applies to every profile")
	require.Equal(t, scheduler.DefaultProfile().Plugins, def.Plugins)
	require.False(t, def.NoPreemption)

	require.True(t, bp.NoPreemption)
	require.Equal(t, scheduler.MostAllocated, bp.Args.ScoringStrategy)
	require.Equal(t, []scheduler.ResourceWeight{{Name: "cpu", Weight: 3}, {Name: "memory", Weight: 1}}, bp.Args.Resources)
	require.Equal(t, scheduler.SpreadDefaultingList, bp.Args.SpreadDefaulting)
	require.Len(t, bp.Args.DefaultConstraints, 1)
	weights := map[string]int64{}
	for _, p := range bp.Plugins {
		weights[p.Name] = p.Weight
	}
	require.Equal(t, int64(5), weights[scheduler.NameNodeResourcesFit])
	require.Equal(t, int64(0), weights[scheduler.NameBalancedAllocation], "disabled at score: filters only (it has none)")
	require.Equal(t, int64(3), weights[scheduler.NameTaintToleration])
	require.Equal(t, [2]int64{2e9, 20e9}, [2]int64{int64(sc.SchedulerBackoff[0]), int64(sc.SchedulerBackoff[1])})

	var warns []string
	for _, w := range sc.Warnings {
		warns = append(warns, w.String())
	}
	require.Contains(t, warns, "s.yaml:24: profiles[1].plugins.filter.enabled[0].name: plugin VolumeRestrictions has no effect in the simulator: ReadWriteOncePod and volume conflicts are not checked")
}

func TestKubeSchedulerConfigurationErrors(t *testing.T) {
	cases := map[string]string{
		"profiles:\n  - plugins:\n      score:\n        enabled: [{name: MyPlugin}]\n":                                   `s.yaml:12: profiles[0].plugins.score.enabled[0].name: unknown or out-of-tree plugin "MyPlugin"`,
		"profiles:\n  - pluginConfig:\n      - name: NodeResourcesFit\n        args: {scoringStrategy: {type: Fancy}}\n": `s.yaml:12: profiles[0].pluginConfig[0].args.scoringStrategy.type: unknown type "Fancy"; use LeastAllocated, MostAllocated or RequestedToCapacityRatio`,
		"profiles:\n  - pluginConfig:\n      - name: NodeResourcesFit\n        args: {scoringStrat: {}}\n":               `s.yaml:12: profiles[0].pluginConfig[0].args: json: unknown field "scoringStrat"`,
		"profiles: [{}, {}]\n":                 `profiles[1].schedulerName: duplicate schedulerName "default-scheduler"`,
		"extenders: [{urlPrefix: http://x}]\n": `s.yaml:9: extenders: scheduler extenders are not modelled`,
		"profilez: []\n":                       `s.yaml:9: profilez: unknown field "profilez"; did you mean "profiles"?`,
	}
	for body, want := range cases {
		_, err := loadDoc(t, minimal+"---\napiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"+body)
		require.Error(t, err, body)
		require.Contains(t, err.Error(), want, body)
	}
	_, err := loadDoc(t, minimal+"---\napiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n")
	require.ErrorContains(t, err, "v1beta2 and v1beta3 were removed")
}
