package config

import (
	"fmt"
	"path"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/clustersim/clustersim/sim/manifest"
)

// Deployment is the Cluster Autoscaler's own Deployment among a cluster's
// manifests (the AWS examples' cluster-autoscaler-autodiscover.yaml, the
// Helm chart's rendering): the container that runs it, and the flags it is
// given, as the simulated Cluster Autoscaler's configuration.
type Deployment struct {
	Doc *manifest.Document
	// Path is the container's field path, e.g. spec.template.spec.containers[0].
	Path  string
	Image string
	// Args are the flags: the command after the program name, then the
	// args; ArgPaths gives the field path of each, for messages.
	Args     []string
	ArgPaths []string
	// ScaledToZero: spec.replicas is 0, so no Cluster Autoscaler runs.
	ScaledToZero bool
	// OtherCommand is set when the container's command is not the
	// cluster-autoscaler program (a shell wrapping it): its flags cannot be
	// read, and the upstream defaults apply.
	OtherCommand string
}

// FindDeployment reports whether d is a Deployment that runs the Cluster
// Autoscaler: a container whose image is .../cluster-autoscaler (any
// registry, tag or digest; the old per-architecture names such as
// cluster-autoscaler-amd64 too) or whose command runs a program named
// cluster-autoscaler. The first such container is the one read.
func FindDeployment(d *manifest.Document) (*Deployment, bool) {
	if d.Kind != "Deployment" {
		return nil, false
	}
	containers := manifest.Lookup(d.Node, "spec", "template", "spec", "containers")
	if containers == nil || containers.Kind != yaml.SequenceNode {
		return nil, false
	}
	for i, c := range containers.Content {
		c = manifest.Lookup(c)
		image := manifest.Scalar(manifest.Lookup(c, "image"))
		command, cmdOK := manifest.Scalars(manifest.Lookup(c, "command"))
		args, argsOK := manifest.Scalars(manifest.Lookup(c, "args"))
		byImage := isAutoscalerImage(image)
		byCommand := len(command) > 0 && isAutoscalerProgram(command[0])
		if !byImage && !byCommand {
			continue
		}
		dep := &Deployment{Doc: d, Path: fmt.Sprintf("spec.template.spec.containers[%d]", i), Image: image,
			ScaledToZero: manifest.Scalar(manifest.Lookup(d.Node, "spec", "replicas")) == "0"}
		switch {
		case !cmdOK || !argsOK:
			dep.OtherCommand = "command or args that are not lists of strings"
		case len(command) > 0 && !byCommand:
			dep.OtherCommand = strings.Join(command, " ")
		default:
			for j := 1; j < len(command); j++ {
				dep.Args = append(dep.Args, command[j])
				dep.ArgPaths = append(dep.ArgPaths, fmt.Sprintf("%s.command[%d]", dep.Path, j))
			}
			for j, a := range args {
				dep.Args = append(dep.Args, a)
				dep.ArgPaths = append(dep.ArgPaths, fmt.Sprintf("%s.args[%d]", dep.Path, j))
			}
		}
		return dep, true
	}
	return nil, false
}

// Options parses the Deployment's flags as ParseFlags does, each message
// at the command or args entry it concerns.
func (dep *Deployment) Options() (Options, error) {
	return parseFlags(dep.Args, dep.Doc, dep.Path, func(i int) string { return dep.ArgPaths[i] })
}

// imageName is the last part of an image reference's repository, without
// the registry, path, tag or digest: cluster-autoscaler for
// registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0 or
// k8s.gcr.io/cluster-autoscaler@sha256:....
func imageName(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	name := image[strings.LastIndex(image, "/")+1:]
	if i := strings.Index(name, ":"); i >= 0 {
		name = name[:i]
	}
	return name
}

// isAutoscalerImage: registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0,
// k8s.gcr.io/cluster-autoscaler-amd64@sha256:..., a mirror's copy.
func isAutoscalerImage(image string) bool {
	name := imageName(image)
	switch strings.TrimPrefix(name, "cluster-autoscaler") {
	case "", "-amd64", "-arm64", "-arm", "-ppc64le", "-s390x":
		return strings.HasPrefix(name, "cluster-autoscaler")
	}
	return false
}

// isAutoscalerProgram: ./cluster-autoscaler, /cluster-autoscaler.
func isAutoscalerProgram(cmd string) bool {
	return path.Base(strings.TrimSpace(cmd)) == "cluster-autoscaler"
}
