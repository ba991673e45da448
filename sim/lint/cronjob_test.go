package lint

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/internal/fixtures"
)

// A CronJob is linted as the Jobs it starts, named and located as the
// manifest says (kubernetes/website content/en/examples/application/job/cronjob.yaml,
// with requests).
func TestCronJobFinding(t *testing.T) {
	_, f := oneUnhostable(t, dbOnly, fixtures.HelloCronJob)
	require.Equal(t, "CronJob/default/hello", f.Workload)
	require.Equal(t, "spec.jobTemplate.spec.template.spec", f.Path)
}
