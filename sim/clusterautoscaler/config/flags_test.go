package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
)

func TestParseFlagsDefaults(t *testing.T) {
	o, err := ParseFlags(nil, nil, "args")
	require.NoError(t, err)
	require.Equal(t, DefaultOptions(), o)
	require.Equal(t, 10*time.Second, o.ScanInterval)
	require.Equal(t, []string{"least-waste"}, o.Expanders)
	require.Equal(t, 15*time.Minute, o.MaxNodeProvisionTime)
	require.Equal(t, 0.5, o.ScaleDownUtilizationThreshold)
	require.Equal(t, int32(-10), o.ExpendablePodsPriorityCutoff)
	require.Equal(t, 1000, o.MaxNodesPerScaleUp)
	require.Equal(t, 5*time.Minute, o.InitialNodeGroupBackoffDuration)
	require.Equal(t, 30*time.Minute, o.MaxNodeGroupBackoffDuration)
	require.Equal(t, 3*time.Hour, o.NodeGroupBackoffResetTimeout)
	require.True(t, o.ScaleDownEnabled)
	require.True(t, o.SkipNodesWithSystemPods)
}

func TestParseFlagsValues(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		check func(t *testing.T, o Options)
	}{
		{"scan interval", []string{"--scan-interval=30s"}, func(t *testing.T, o Options) { require.Equal(t, 30*time.Second, o.ScanInterval) }},
		{"single dash", []string{"-scan-interval=1m"}, func(t *testing.T, o Options) { require.Equal(t, time.Minute, o.ScanInterval) }},
		{"value as next arg", []string{"--expander", "priority,least-waste"}, func(t *testing.T, o Options) {
			require.Equal(t, []string{"priority", "least-waste"}, o.Expanders)
		}},
		{"chain", []string{"--expander=priority,random"}, func(t *testing.T, o Options) { require.Equal(t, []string{"priority", "random"}, o.Expanders) }},
		{"bool alone", []string{"--balance-similar-node-groups"}, func(t *testing.T, o Options) { require.True(t, o.BalanceSimilarNodeGroups) }},
		{"bool false", []string{"--scale-down-enabled=false"}, func(t *testing.T, o Options) { require.False(t, o.ScaleDownEnabled) }},
		{"threshold", []string{"--scale-down-utilization-threshold=0.65"}, func(t *testing.T, o Options) {
			require.Equal(t, 0.65, o.ScaleDownUtilizationThreshold)
		}},
		{"scale-down times", []string{"--scale-down-unneeded-time=5m", "--scale-down-delay-after-add=2m", "--scale-down-delay-after-delete=30s", "--scale-down-delay-after-failure=1m"},
			func(t *testing.T, o Options) {
				require.Equal(t, 5*time.Minute, o.ScaleDownUnneededTime)
				require.Equal(t, 2*time.Minute, o.ScaleDownDelayAfterAdd)
				require.Equal(t, 30*time.Second, o.ScaleDownDelayAfterDelete)
				require.Equal(t, time.Minute, o.ScaleDownDelayAfterFailure)
			}},
		{"cutoff", []string{"--expendable-pods-priority-cutoff=-100"}, func(t *testing.T, o Options) { require.Equal(t, int32(-100), o.ExpendablePodsPriorityCutoff) }},
		{"backoff", []string{"--initial-node-group-backoff-duration=1m", "--max-node-group-backoff-duration=10m", "--node-group-backoff-reset-timeout=1h"},
			func(t *testing.T, o Options) {
				require.Equal(t, time.Minute, o.InitialNodeGroupBackoffDuration)
				require.Equal(t, 10*time.Minute, o.MaxNodeGroupBackoffDuration)
				require.Equal(t, time.Hour, o.NodeGroupBackoffResetTimeout)
			}},
		{"provision and pods", []string{"--max-node-provision-time=5m", "--new-pod-scale-up-delay=30s", "--max-nodes-per-scaleup=50"}, func(t *testing.T, o Options) {
			require.Equal(t, 5*time.Minute, o.MaxNodeProvisionTime)
			require.Equal(t, 30*time.Second, o.NewPodScaleUpDelay)
			require.Equal(t, 50, o.MaxNodesPerScaleUp)
		}},
		{"skip flags", []string{"--skip-nodes-with-system-pods=false", "--skip-nodes-with-local-storage=false"}, func(t *testing.T, o Options) {
			require.False(t, o.SkipNodesWithSystemPods)
			require.False(t, o.SkipNodesWithLocalStorage)
		}},
		{"nodes", []string{"--nodes=1:10:workers", "--nodes=0:3:gpu"}, func(t *testing.T, o Options) {
			require.Equal(t, []NodesSpec{{Min: 1, Max: 10, Name: "workers", Arg: 0}, {Min: 0, Max: 3, Name: "gpu", Arg: 1}}, o.Nodes)
		}},
		{"auto discovery", []string{"--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/demo=owned"}, func(t *testing.T, o Options) {
			require.Equal(t, []map[string]string{{"k8s.io/cluster-autoscaler/enabled": "", "k8s.io/cluster-autoscaler/demo": "owned"}}, o.AutoDiscovery)
		}},
		{"program name skipped", []string{"./cluster-autoscaler", "--v=4"}, func(t *testing.T, o Options) { require.Len(t, o.Warnings, 1) }},
		{"cores", []string{"--cores-total=0:64", "--memory-total=0:256"}, func(t *testing.T, o Options) {
			require.Equal(t, [2]int64{0, 64}, o.CoresTotal)
			require.Equal(t, [2]int64{0, 256}, o.MemoryTotalGiB)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := ParseFlags(c.args, nil, "args")
			require.NoError(t, err)
			c.check(t, o)
		})
	}
}

// Flags without a modelled effect warn once each, one warning per
// reason, at the first flag of the reason, coded for sim lint.
func TestParseFlagsNoEffectWarning(t *testing.T) {
	o, err := ParseFlags([]string{"--cloud-provider=aws", "--v=4", "--logtostderr=true", "--stderrthreshold=info", "--aws-use-static-instance-list",
		"--leader-elect=false", "--v=2", "--kube-client-qps=50", "--scale-down-delay-type-local=true"}, nil, "spec.clusterAutoscaler.args")
	require.NoError(t, err)
	var got []string
	for _, w := range o.Warnings {
		got = append(got, w.Code+" "+w.Error())
	}
	require.Equal(t, []string{
		"ca.flag-no-effect spec.clusterAutoscaler.args[1]: --v, --logtostderr, --stderrthreshold: no effect in the simulation: " + noEffectLogging.Reason,
		"ca.flag-no-effect spec.clusterAutoscaler.args[4]: --aws-use-static-instance-list: no effect in the simulation: the simulation's instance types come from its EC2 catalogue, not from the AWS API or the provider's static list",
		"ca.flag-no-effect spec.clusterAutoscaler.args[5]: --leader-elect, --kube-client-qps: no effect in the simulation: " + noEffectProcess.Reason,
		"ineffective.ca-flag spec.clusterAutoscaler.args[8]: --scale-down-delay-type-local: no effect in the simulation: the --scale-down-delay-after-* delays apply to the whole cluster: per-node-group delays are not modelled",
	}, got)
}

// --max-startup-time is upstream's (the health check's restart after no
// successful loop since startup, 20m): accepted with the process reason.
// A misspelling of it is an unknown flag with a hint.
func TestMaxStartupTime(t *testing.T) {
	o, err := ParseFlags([]string{"--max-startup-time=30m"}, nil, "args")
	require.NoError(t, err)
	require.Len(t, o.Warnings, 1)
	require.Equal(t, "args[0]: --max-startup-time: no effect in the simulation: "+noEffectProcess.Reason, o.Warnings[0].Error())
	_, err = ParseFlags([]string{"--max-startup-tme=30m"}, nil, "args")
	require.EqualError(t, err, "args[0]: unknown Cluster Autoscaler flag --max-startup-tme; did you mean --max-startup-time?")
}

// pflag reads klog's underscores as dashes (kube_flag.InitFlags'
// WordSepNormalizeFunc): --log_dir is --log-dir.
func TestFlagUnderscores(t *testing.T) {
	o, err := ParseFlags([]string{"--log_dir=/var/log", "--scale_down_unneeded_time=3m"}, nil, "args")
	require.NoError(t, err)
	require.Equal(t, 3*time.Minute, o.ScaleDownUnneededTime)
	require.Len(t, o.Warnings, 1)
	require.Contains(t, o.Warnings[0].Error(), "--log-dir: no effect")
}

// Flags 1.37 no longer defines: a removed-flag warning each (the real one
// stops at startup on them).
func TestRemovedFlags(t *testing.T) {
	o, err := ParseFlags([]string{"--parallel-drain", "--max-autoprovisioned-node-group-count", "5"}, nil, "args")
	require.NoError(t, err)
	require.Len(t, o.Warnings, 2)
	for _, w := range o.Warnings {
		require.Equal(t, CodeRemovedFlag, w.Code)
		require.Contains(t, w.Error(), "is not a flag of Cluster Autoscaler 1.37, which stops at startup on it as an unknown flag")
	}
	require.Equal(t, "args[0]: --parallel-drain is not a flag of Cluster Autoscaler 1.37, which stops at startup on it as an unknown flag ("+
		removedFlags["parallel-drain"].note+"); the simulation ignores it; remove it", o.Warnings[0].Error())
}

// Upstream's Options refuses --enable-dynamic-resource-allocation=false
// and --predicate-parallelism below 1 (klog.Fatalf at startup).
func TestFlagsUpstreamRefuses(t *testing.T) {
	_, err := ParseFlags([]string{"--enable-dynamic-resource-allocation=false"}, nil, "args")
	require.EqualError(t, err, "args[0]: --enable-dynamic-resource-allocation=false: Cluster Autoscaler 1.37 refuses it and exits at startup; remove it: the flag is locked to true")
	_, err = ParseFlags([]string{"--predicate-parallelism=0"}, nil, "args")
	require.ErrorContains(t, err, "Cluster Autoscaler 1.37 refuses it and exits at startup")
	o, err := ParseFlags([]string{"--enable-dynamic-resource-allocation"}, nil, "args")
	require.NoError(t, err)
	require.Len(t, o.Warnings, 1)
	require.Contains(t, o.Warnings[0].Error(), "pods' spec.resourceClaims, ResourceClaims, ResourceClaimTemplates, DeviceClasses and ResourceSlices are not read")
}

// The flags modelled since 1.37's table.
func TestParseFlagsModelled137(t *testing.T) {
	d := DefaultOptions()
	require.False(t, d.SalvoScaleUp)
	require.Equal(t, time.Minute, d.SalvoScaleUpBudget)
	o, err := ParseFlags([]string{"--salvo-scale-up", "--salvo-scale-up-budget=30s", "--scale-down-non-empty-candidates-count=0",
		"--max-bulk-soft-taint-count=0", "--node-delete-delay-after-taint=1s", "--memory-difference-ratio=0.02",
		"--max-allocatable-difference-ratio=0.1", "--scaleup-simulation-for-skipped-node-groups-enabled"}, nil, "args")
	require.NoError(t, err)
	require.Empty(t, o.Warnings)
	require.True(t, o.SalvoScaleUp)
	require.Equal(t, 30*time.Second, o.SalvoScaleUpBudget)
	require.Equal(t, 0, o.ScaleDownNonEmptyCandidatesCount)
	require.Equal(t, 0, o.MaxBulkSoftTaintCount)
	require.Equal(t, time.Second, o.NodeDeleteDelayAfterTaint)
	require.Equal(t, 0.02, o.MemoryDifferenceRatio)
	require.Equal(t, 0.1, o.MaxAllocatableDifferenceRatio)
	require.True(t, o.ScaleUpSimulationForSkippedNodeGroups)

	// The budget alone does nothing.
	o, err = ParseFlags([]string{"--salvo-scale-up-budget=30s"}, nil, "args")
	require.NoError(t, err)
	require.Len(t, o.Warnings, 1)
	require.Equal(t, CodeFlagNotModelled, o.Warnings[0].Code)
	require.Equal(t, "args[0]: --salvo-scale-up-budget has no effect without --salvo-scale-up (one scale-up per loop); add --salvo-scale-up", o.Warnings[0].Error())
}

func TestParseFlagsErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--scan-intervall=10s"}, "args[0]: unknown Cluster Autoscaler flag --scan-intervall; did you mean --scan-interval?"},
		{[]string{"--balance-similar-nodegroups"}, "args[0]: unknown Cluster Autoscaler flag --balance-similar-nodegroups; did you mean --balance-similar-node-groups?"},
		{[]string{"--frobnicate=1"}, "args[0]: unknown Cluster Autoscaler flag --frobnicate; see the flags of cluster-autoscaler --help (FAQ: What are the parameters to CA?)"},
		{[]string{"--v=4", "--scan-interval=10"}, `args[1]: --scan-interval: cannot parse "10" as a duration; use Go syntax such as 10s, 5m or 1h30m`},
		{[]string{"--expander=least-wast"}, `args[0]: --expander: unknown expander "least-wast" (known: random, most-pods, least-waste, least-nodes, price, priority); did you mean least-waste?`},
		{[]string{"--expander=random,priority"}, "args[0]: --expander: expander priority comes after random, which always returns one option, so it would never be used"},
		{[]string{"--expander=priority,priority"}, "args[0]: --expander: expander priority is given twice; each expander may appear once"},
		{[]string{"--expander=grpc"}, "args[0]: --expander: the grpc expander calls an external plugin the simulation cannot run; use a built-in expander"},
		{[]string{"--scale-down-utilization-threshold=50"}, "args[0]: --scale-down-utilization-threshold: must be between 0 and 1 (a fraction of allocatable), got 50"},
		{[]string{"--scale-down-enabled=yes"}, `args[0]: --scale-down-enabled: cannot parse "yes" as a boolean; use true or false`},
		{[]string{"--max-nodes-per-scaleup"}, "args[0]: flag --max-nodes-per-scaleup needs a value; write --max-nodes-per-scaleup=<value>"},
		{[]string{"scan-interval=10s"}, `args[0]: "scan-interval=10s" is not a flag; write each flag as --name=value`},
		{[]string{"--nodes=1:x:ng"}, `args[0]: --nodes: cannot parse "1:x:ng" as <min>:<max>:<node group name> with 0 <= min <= max`},
		{[]string{"--node-group-auto-discovery=label:foo=bar"}, `args[0]: --node-group-auto-discovery: "label:foo=bar" is not an AWS auto-discovery spec; on AWS write asg:tag=<key>[=<value>],<key>...`},
		{[]string{"--cloud-provider=gce"}, `args[0]: --cloud-provider: the simulation models the aws cloud provider only, got "gce"; use --cloud-provider=aws or leave it out`},
		{[]string{"--estimator=oldbinpacking"}, `args[0]: --estimator: unknown estimator "oldbinpacking"; the only one is binpacking`},
		// A loop every nanosecond would never let the run end.
		{[]string{"--scan-interval=1ns"}, `args: --scan-interval 1ns is shorter than 1s; use at least 1s; the upstream default is 10s`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, err := ParseFlags(c.args, nil, "args")
			require.EqualError(t, err, c.want)
		})
	}
}

func TestParseFlagsErrorLines(t *testing.T) {
	docs, err := manifest.ReadBytes("s.yaml", []byte(caScenario+`    args:
      - --scan-interval=10s
      - --expandr=priority
`))
	require.NoError(t, err)
	_, err = ParseFlags([]string{"--scan-interval=10s", "--expandr=priority"}, docs[0], "spec.clusterAutoscaler.args")
	require.EqualError(t, err, "s.yaml:8: spec.clusterAutoscaler.args[1]: unknown Cluster Autoscaler flag --expandr; did you mean --expander?")
}

func TestParseFlagsWarnings(t *testing.T) {
	o, err := ParseFlags([]string{"--scan-interval=10s", "--scan-interval=20s", "--expander=price"}, nil, "args")
	require.NoError(t, err)
	require.Equal(t, 20*time.Second, o.ScanInterval)
	require.Len(t, o.Warnings, 2)
	require.Equal(t, "args[1]: --scan-interval is also given at args[0]: the last value wins", o.Warnings[0].Error())
	require.Contains(t, o.Warnings[1].Error(), "the AWS cloud provider has no pricing model")
}

// Flags whose subject the simulation does not have are accepted and
// reported as having no effect, not silently taken as modelled.
func TestFlagsWithoutSubject(t *testing.T) {
	o, err := ParseFlags([]string{"--max-inactivity=5m", "--skip-nodes-with-custom-controller-pods=false"}, nil, "args")
	require.NoError(t, err)
	require.Len(t, o.Warnings, 2)
	require.Equal(t, "args[0]: --max-inactivity: no effect in the simulation: "+noEffectProcess.Reason, o.Warnings[0].Error())
	require.Equal(t, CodeFlagNoEffect, o.Warnings[0].Code)
	require.Equal(t, "args[1]: --skip-nodes-with-custom-controller-pods: no effect in the simulation: every pod's controller is a built-in one (Deployment, StatefulSet, Job, DaemonSet): no pod has a custom controller", o.Warnings[1].Error())
}

// The unready-node flags are modelled (CA 1.35+ for --max-node-startup-time),
// with upstream's defaults (cluster-autoscaler config/flags/flags.go:
// max-node-startup-time 15m, scale-down-unready-enabled true,
// scale-down-unready-time 20m (config.DefaultScaleDownUnreadyTime),
// max-total-unready-percentage 45, ok-total-unready-count 3).
func TestUnreadyFlags(t *testing.T) {
	o, err := ParseFlags(nil, nil, "args")
	require.NoError(t, err)
	require.Equal(t, 15*time.Minute, o.MaxNodeStartupTime)
	require.True(t, o.ScaleDownUnreadyEnabled)
	require.Equal(t, 20*time.Minute, o.ScaleDownUnreadyTime)
	require.Equal(t, 45.0, o.MaxTotalUnreadyPercentage)
	require.Equal(t, 3, o.OkTotalUnreadyCount)

	o, err = ParseFlags([]string{"--max-node-startup-time=5m", "--scale-down-unready-enabled=false", "--scale-down-unready-time=1h",
		"--max-total-unready-percentage=10", "--ok-total-unready-count=0"}, nil, "args")
	require.NoError(t, err)
	require.Empty(t, o.Warnings, "modelled flags draw no no-effect warning")
	require.Equal(t, 5*time.Minute, o.MaxNodeStartupTime)
	require.False(t, o.ScaleDownUnreadyEnabled)
	require.Equal(t, time.Hour, o.ScaleDownUnreadyTime)
	require.Equal(t, 10.0, o.MaxTotalUnreadyPercentage)
	require.Equal(t, 0, o.OkTotalUnreadyCount)

	_, err = ParseFlags([]string{"--max-total-unready-percentage=150"}, nil, "args")
	require.ErrorContains(t, err, "--max-total-unready-percentage")
	require.ErrorContains(t, err, "not a percentage from 0 to 100")
}

// --max-empty-bulk-delete was removed in CA 1.33: a warning naming its
// replacement; read as --max-scale-down-parallelism unless that is given.
func TestMaxEmptyBulkDeleteRemoved(t *testing.T) {
	o, err := ParseFlags([]string{"--max-empty-bulk-delete=4"}, nil, "args")
	require.NoError(t, err)
	require.Equal(t, 4, o.MaxScaleDownParallelism)
	require.Len(t, o.Warnings, 1)
	require.Equal(t, "args[0]: --max-empty-bulk-delete "+RemovedFlag+"; --max-scale-down-parallelism (default 10) replaced it and bounds the deletion of empty and drained nodes alike (the simulation reads this value as --max-scale-down-parallelism unless that is given, as 1.28 to 1.32 did); write --max-scale-down-parallelism=4 instead",
		o.Warnings[0].Error())

	o, err = ParseFlags([]string{"--max-empty-bulk-delete=4", "--max-scale-down-parallelism=7"}, nil, "args")
	require.NoError(t, err)
	require.Equal(t, 7, o.MaxScaleDownParallelism)
	o, err = ParseFlags([]string{"--max-scale-down-parallelism=7", "--max-empty-bulk-delete=4"}, nil, "args")
	require.NoError(t, err)
	require.Equal(t, 7, o.MaxScaleDownParallelism)
}

// --blocking-system-pod-distruption-timeout (upstream's spelling) is
// modelled: 1 h by default.
func TestBlockingSystemPodTimeoutFlag(t *testing.T) {
	require.Equal(t, time.Hour, DefaultOptions().BlockingSystemPodDisruptionTimeout)
	o, err := ParseFlags([]string{"--blocking-system-pod-distruption-timeout=20m"}, nil, "args")
	require.NoError(t, err)
	require.Equal(t, 20*time.Minute, o.BlockingSystemPodDisruptionTimeout)
	require.Empty(t, o.Warnings)
}

// ModelledArgs keeps the flags the simulation reads, in a form ParseFlags
// reads as it reads the originals, and names the rest without their
// values (sim import writes the kept ones only).
func TestModelledArgs(t *testing.T) {
	args := []string{"./cluster-autoscaler", "--v=4", "--cloud-provider=aws", "--expander", "priority,least-waste",
		"--kubeconfig", "/etc/token-s3cr3t", "--scale-down-enabled", "-scan-interval=30s", "--leader-elect",
		"--nodes=1:10:ng-1", "--nodes", "0:5:ng-2", "--vault-token=s3cr3t", "positional-s3cr3t",
		"--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod"}
	kept, dropped := ModelledArgs(args)
	require.Equal(t, []string{"--cloud-provider=aws", "--expander=priority,least-waste", "--scale-down-enabled", "--scan-interval=30s",
		"--nodes=1:10:ng-1", "--nodes=0:5:ng-2",
		"--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod"}, kept)
	require.Equal(t, []string{"--v", "--kubeconfig", "--leader-elect", "--vault-token", "(not a flag)"}, dropped)
	require.NotContains(t, strings.Join(append(kept, dropped...), " "), "s3cr3t")

	want, err := ParseFlags(args[:len(args)-3:len(args)-3], nil, "args")
	require.NoError(t, err)
	got, err := ParseFlags(kept[:len(kept)-1], nil, "args")
	require.NoError(t, err)
	want.Warnings, got.Warnings = nil, nil
	for _, o := range []*Options{&want, &got} {
		for i := range o.Nodes {
			o.Nodes[i].Arg = 0 // the index of the flag, for messages
		}
	}
	require.Equal(t, want, got)

	// A flag without its value stays, for ParseFlags to say so.
	kept, _ = ModelledArgs([]string{"--expander", "--v=2"})
	require.Equal(t, []string{"--expander"}, kept)
	_, err = ParseFlags(kept, nil, "args")
	require.ErrorContains(t, err, "flag --expander needs a value")
}
