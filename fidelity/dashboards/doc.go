// Package dashboards checks sim run --metrics against the dashboards users
// put it in: Karpenter's published Grafana capacity dashboard
// (testdata/karpenter-capacity-dashboard.json, from aws/karpenter-provider-aws
// website/content/en/docs/getting-started/getting-started-with-karpenter/ at
// commit 1d927085dd81a9df9301e613f371dac5b4d16bfe, Apache-2.0). Its own
// module, so that Prometheus' packages (the OpenMetrics parser, the TSDB
// and the PromQL engine) stay out of the simulator's dependencies.
package dashboards
