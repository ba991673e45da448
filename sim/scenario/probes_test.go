package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// stsWith is a StatefulSet whose one container has the given extra YAML
// (indented for the container's fields).
func stsWith(name, container string) string {
	return "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: " + name + "}\nspec:\n  replicas: 2\n  serviceName: " + name + "\n" +
		"  selector: {matchLabels: {app: " + name + "}}\n  template:\n    metadata: {labels: {app: " + name + "}}\n" +
		"    spec:\n      containers:\n      - name: c\n        image: x\n        resources: {requests: {cpu: \"1\"}}\n" + container
}

// TestReadyAfterCompiled: a StatefulSet's ReadyAfter comes from its
// containers' readiness and startup probes, with the API's defaults and
// the scenario's podStartDelay (kubelet.ReadyAfter); other kinds keep 0.
func TestReadyAfterCompiled(t *testing.T) {
	for _, tc := range []struct {
		name, startDelay, container string
		want                        time.Duration
	}{
		{"no probe", "", "", 0},
		// zookeeper.yaml's probe: periodSeconds defaults to 10.
		{"readiness 10", "", "        readinessProbe: {exec: {command: [zkOk.sh]}, initialDelaySeconds: 10, timeoutSeconds: 5}\n", 10 * time.Second},
		{"successThreshold 3", "", "        readinessProbe: {tcpSocket: {port: 80}, initialDelaySeconds: 10, successThreshold: 3}\n", 30 * time.Second},
		// Startup ticks from AddPod, podStartDelay before the start:
		// 10 s is 8 s after the start with the default 2 s, 7 s with 3 s.
		{"startup", "", "        startupProbe: {tcpSocket: {port: 80}}\n", 8 * time.Second},
		{"startup, podStartDelay 3s", "3s", "        startupProbe: {tcpSocket: {port: 80}}\n", 7 * time.Second},
		{"startup then readiness", "", "        startupProbe: {tcpSocket: {port: 80}}\n        readinessProbe: {tcpSocket: {port: 80}, initialDelaySeconds: 10}\n", 18 * time.Second},
	} {
		doc := minimal
		if tc.startDelay != "" {
			doc += "  podStartDelay: " + tc.startDelay + "\n"
		}
		sc, err := loadString(t, doc+stsWith("db", tc.container))
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, sc.Workloads[0].ReadyAfter, tc.name)
	}

	// A Deployment's probes are checked, not read.
	sc, err := loadString(t, minimal+"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"+
		"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n"+
		"      containers: [{name: c, image: x, readinessProbe: {initialDelaySeconds: 30}}]\n")
	require.NoError(t, err)
	require.Zero(t, sc.Workloads[0].ReadyAfter)
}

// TestProbeErrors: probe fields the API server rejects are errors at
// their line and field.
func TestProbeErrors(t *testing.T) {
	_, err := loadString(t, minimal+stsWith("db", "        readinessProbe:\n          exec: {command: [ok]}\n          initialDelaySeconds: -5\n"))
	require.ErrorContains(t, err, "scenario.yaml:23: spec.template.spec.containers[0].readinessProbe.initialDelaySeconds: initialDelaySeconds -5 is negative (the API server rejects this); give 0 or more (0 takes the default)")
	_, err = loadString(t, minimal+stsWith("db", "        startupProbe: {exec: {command: [ok]}, periodSeconds: -1}\n"))
	require.ErrorContains(t, err, "scenario.yaml:21: spec.template.spec.containers[0].startupProbe.periodSeconds: periodSeconds -1 is negative")
	_, err = loadString(t, minimal+stsWith("db", "        startupProbe:\n          exec: {command: [ok]}\n          successThreshold: 2\n"))
	require.ErrorContains(t, err, "scenario.yaml:23: spec.template.spec.containers[0].startupProbe.successThreshold: a startup probe's successThreshold must be 1 (the API server rejects 2); remove it or set 1")
}
