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
	r := check(t, header+"  staticNodes:\n    - {name: db, instanceType: m5.large, count: 1, taints: [{key: dedicated, value: db, effect: NoSchedule}]}\n", cron)
	fs := findingsOf(r, KindUnhostable)
	require.Len(t, fs, 1)
	require.Equal(t, "CronJob/default/hello", fs[0].Workload)
	require.Equal(t, "spec.jobTemplate.spec.template.spec", fs[0].Path)
}
