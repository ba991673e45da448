package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/importer"
	"github.com/clustersim/clustersim/sim/manifest"
)

func newImportCmd(v *viper.Viper, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import FILE|DIR... [-o OUT.yaml]",
		Short: "Write a scenario that starts from a live cluster's state, read from kubectl exports",
		Long: `sim import reads what kubectl exports (-o yaml or -o json: a List or single
objects; a folder is its .yaml, .yml and .json files, as sim lint -f reads
it) and writes a scenario that starts from that state: the nodes with
their type, zone, capacity type, labels, taints and size; the pods bound
where they run; the controllers at their replica counts; Jobs with their
progress; HPAs, PDBs, NodePools, node groups and the Cluster Autoscaler's
flags. Secrets and ConfigMaps are never read; commands, args, environment,
volumes and annotations the models do not use are dropped. What could not be
placed as it was is reported on stderr, one line each.`,
		Example: `  kubectl get nodes,pods,deployments,replicasets,statefulsets,daemonsets,jobs,cronjobs,pdb,hpa,priorityclasses -A -o yaml > cluster.yaml
  kubectl get nodepools,ec2nodeclasses,nodeclaims -o yaml > karpenter.yaml
  sim import cluster.yaml karpenter.yaml -o imported.yaml && sim run imported.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, err := catalog.Default()
			if err != nil {
				return err
			}
			out := v.GetString("output")
			name := v.GetString("name")
			if name == "" && out != "" {
				name = strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
			}
			opts := importer.Options{Redact: v.GetBool("redact"), Name: name, Duration: v.GetString("duration")}
			if err := opts.Check(); err != nil {
				return fmt.Errorf("--%w", err)
			}
			files, err := importFiles(args)
			if err != nil {
				return err
			}
			var outs, ins pathSet
			outs.add("-o", out)
			ins.addFlags(v, "config")
			for _, file := range files {
				ins.add("an input of the import", file)
			}
			if err := checkClobber(outs, ins); err != nil {
				return err
			}
			im := importer.New(opts, cat)
			_, err = awaitInput(cmd.Context(), func() (struct{}, error) {
				for _, file := range files {
					if err := addFile(im, file); err != nil {
						return struct{}{}, err
					}
				}
				return struct{}{}, nil
			})
			if err != nil {
				return err
			}
			var w io.Writer = stdout
			var f *atomicFile
			if out != "" {
				if f, err = createAtomic(cmd.Context(), out); err != nil {
					return fmt.Errorf("-o %s: %w", out, err)
				}
				defer f.Abort()
				w = f
			}
			err = im.Write(w)
			for _, n := range im.Notices() {
				fmt.Fprintln(stderr, n)
			}
			if err != nil {
				var ie *importer.Error
				if errors.As(err, &ie) {
					return fmt.Errorf("sim import: %d problem(s), nothing written:\n%w", len(ie.Problems), err)
				}
				return err
			}
			if f != nil {
				if err := f.Commit(); err != nil {
					return fmt.Errorf("-o %s: %w", out, err)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringP("output", "o", "", "write the scenario to this file (atomically) instead of stdout")
	f.Bool("redact", false, "replace namespace, workload and node names with stable hashes")
	f.String("name", "", "the scenario's name (default: the output file's name, else imported)")
	f.String("duration", importer.DefaultDuration, "the scenario's duration")
	return cmd
}

// importFiles lists the exports to read: each argument, a folder as the
// files in it that sim lint -f and a scenario's include read, in their
// order (manifest.Files: .yaml, .yml and .json, hidden ones skipped).
func importFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		if fi, err := os.Stat(a); err != nil || !fi.IsDir() {
			files = append(files, a) // opening it says what is wrong
			continue
		}
		in, err := manifest.Files(a)
		if err != nil {
			return nil, err
		}
		files = append(files, in...)
	}
	return files, nil
}

func addFile(im *importer.Importer, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	return im.Add(file, f)
}
