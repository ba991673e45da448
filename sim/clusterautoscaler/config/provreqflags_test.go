package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The ProvisioningRequest flags and their defaults (cluster-autoscaler
// pkg/config/flags/flags.go).
func TestProvReqFlags(t *testing.T) {
	o, err := ParseFlags(nil, nil, "args")
	require.NoError(t, err)
	require.Equal(t, ProvReqOptions{InitialBackoff: time.Minute, MaxBackoff: 10 * time.Minute, MaxBatchSize: 10, BatchTimebox: 10 * time.Second}, o.ProvReq)

	o, err = ParseFlags([]string{"--enable-provisioning-requests", "--provisioning-request-initial-backoff-time=30s",
		"--provisioning-request-max-backoff-time=5m", "--check-capacity-batch-processing=true",
		"--check-capacity-provisioning-request-max-batch-size=3", "--check-capacity-provisioning-request-batch-timebox=1s",
		"--check-capacity-processor-instance=gpu", "--provisioning-request-max-backoff-cache-size=10"}, nil, "args")
	require.NoError(t, err)
	require.Equal(t, ProvReqOptions{Enabled: true, InitialBackoff: 30 * time.Second, MaxBackoff: 5 * time.Minute,
		BatchProcessing: true, MaxBatchSize: 3, BatchTimebox: time.Second, ProcessorInstance: "gpu"}, o.ProvReq)
	var msgs []string
	for _, w := range o.Warnings {
		msgs = append(msgs, w.Msg)
	}
	all := strings.Join(msgs, "\n")
	require.Contains(t, all, "--check-capacity-provisioning-request-batch-timebox: a batch's wall-clock time is not modelled")
	require.Contains(t, all, "--provisioning-request-max-backoff-cache-size: no effect in the simulation: the size of the ProvisioningRequests' back-off cache")

	_, err = ParseFlags([]string{"--check-capacity-provisioning-request-max-batch-size=0"}, nil, "args")
	require.ErrorContains(t, err, "must be between 1 and")
	_, err = ParseFlags([]string{"--enable-provisioning-requests=yes"}, nil, "args")
	require.ErrorContains(t, err, `cannot parse "yes" as a boolean`)
}
