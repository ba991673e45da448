package config

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/clustersim/clustersim/sim/manifest"
)

// TerminationHandlerMode is how aws-node-termination-handler (NTH) runs in
// the cluster, if it does: it is what drains a self-managed node group's
// spot nodes before EC2 reclaims them (managed node groups do not need it:
// EKS drains their nodes itself).
type TerminationHandlerMode uint8

const (
	// NTHNone: no termination handler; a reclaimed node's pods die with
	// its instance.
	NTHNone TerminationHandlerMode = iota
	// NTHIMDS: the DaemonSet (IMDS processor). It cordons and drains a
	// node on its spot interruption notice (ENABLE_SPOT_INTERRUPTION_DRAINING,
	// default true), and on a rebalance recommendation only cordons it
	// (ENABLE_REBALANCE_MONITORING) unless ENABLE_REBALANCE_DRAINING is
	// true (aws/aws-node-termination-handler README, "Installation and
	// Configuration").
	NTHIMDS
	// NTHQueue: the Deployment (queue processor,
	// ENABLE_SQS_TERMINATION_DRAINING=true). It cordons and drains on
	// every event it gets from its SQS queue: interruption notices,
	// rebalance recommendations and the ASG's termination lifecycle hooks
	// (so the old instance a capacity rebalance terminates is drained).
	NTHQueue
)

// String is the mode as spec.clusterAutoscaler.nodeTerminationHandler
// spells it.
func (m TerminationHandlerMode) String() string {
	switch m {
	case NTHIMDS:
		return "imds"
	case NTHQueue:
		return "queue"
	}
	return "none"
}

// TerminationHandler is the compiled aws-node-termination-handler setup.
type TerminationHandler struct {
	Mode TerminationHandlerMode
	// DrainOnRebalance: IMDS mode drains (not only cordons) on a
	// rebalance recommendation (ENABLE_REBALANCE_DRAINING=true). Always
	// true in queue mode.
	DrainOnRebalance bool
	// DrainOnInterruption: false only when an IMDS-mode handler has
	// ENABLE_SPOT_INTERRUPTION_DRAINING=false.
	DrainOnInterruption bool
	// Source names where the setup comes from, for messages: the
	// manifest (Kind/namespace/name) or the scenario field.
	Source string
}

// ParseTerminationHandlerMode reads spec.clusterAutoscaler.nodeTerminationHandler.
func ParseTerminationHandlerMode(s string) (TerminationHandler, error) {
	switch s {
	case "none":
		return TerminationHandler{Mode: NTHNone}, nil
	case "imds":
		return TerminationHandler{Mode: NTHIMDS, DrainOnInterruption: true}, nil
	case "queue":
		return TerminationHandler{Mode: NTHQueue, DrainOnInterruption: true, DrainOnRebalance: true}, nil
	}
	return TerminationHandler{}, fmt.Errorf("unknown mode %q", s)
}

// FindTerminationHandler reports whether d runs aws-node-termination-handler:
// a DaemonSet (IMDS mode) or Deployment (queue mode: the queue processor
// must run as a Deployment, the IMDS one as a DaemonSet) with a container whose image
// is .../aws-node-termination-handler (any registry, tag or digest), as the
// project's Helm chart renders it
// (config/helm/aws-node-termination-handler/templates/daemonset.linux.yaml,
// deployment.yaml). The container's environment gives the IMDS options.
func FindTerminationHandler(d *manifest.Document) (TerminationHandler, bool) {
	if d.Kind != "DaemonSet" && d.Kind != "Deployment" {
		return TerminationHandler{}, false
	}
	containers := manifest.Lookup(d.Node, "spec", "template", "spec", "containers")
	if containers == nil || containers.Kind != yaml.SequenceNode {
		return TerminationHandler{}, false
	}
	for _, c := range containers.Content {
		c = manifest.Lookup(c)
		if !isTerminationHandlerImage(manifest.Scalar(manifest.Lookup(c, "image"))) {
			continue
		}
		env := map[string]string{}
		if e := manifest.Lookup(c, "env"); e != nil && e.Kind == yaml.SequenceNode {
			for _, v := range e.Content {
				env[manifest.Scalar(manifest.Lookup(v, "name"))] = strings.ToLower(manifest.Scalar(manifest.Lookup(v, "value")))
			}
		}
		h := TerminationHandler{Mode: NTHIMDS, DrainOnInterruption: env["ENABLE_SPOT_INTERRUPTION_DRAINING"] != "false",
			DrainOnRebalance: env["ENABLE_REBALANCE_DRAINING"] == "true", Source: d.Ref()}
		if d.Kind == "Deployment" {
			h.Mode, h.DrainOnInterruption, h.DrainOnRebalance = NTHQueue, true, true
		}
		return h, true
	}
	return TerminationHandler{}, false
}

// isTerminationHandlerImage: public.ecr.aws/aws-ec2/aws-node-termination-handler:v1.22.0,
// amazon/aws-node-termination-handler@sha256:..., a mirror's copy.
func isTerminationHandlerImage(image string) bool {
	return imageName(image) == "aws-node-termination-handler"
}
