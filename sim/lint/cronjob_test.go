package lint

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A CronJob is linted as the Jobs it starts, named and located as the
// manifest says (kubernetes/website content/en/examples/application/job/cronjob.yaml,
// with a request).
func TestCronJobFinding(t *testing.T) {
	cron := `---
apiVersion: batch/v1
kind: CronJob
metadata: {name: hello}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - {name: hello, image: busybox:1.28, resources: {requests: {cpu: 100m}}}
          restartPolicy: OnFailure
`
	_, f := oneUnhostable(t, dbOnly, cron)
	require.Equal(t, "CronJob/default/hello", f.Workload)
	require.Equal(t, "spec.jobTemplate.spec.template.spec", f.Path)
}
