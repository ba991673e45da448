package sweep

import (
	"bytes"
	"fmt"
	"path"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// JobSpec says how to run a sweep as a Kubernetes Indexed Job.
type JobSpec struct {
	Name, Namespace, Image string
	// Shards is the Job's completions; Parallelism how many run at once;
	// BackoffLimitPerIndex how often one index is retried.
	Shards, Parallelism, BackoffLimitPerIndex int
	// Args are sim's arguments after "sweep", without the shard flags.
	Args []string
	// Files are the sweep's input files on disk (Embedded ones are in the
	// image) with their paths relative to WorkDir's root: they go in a
	// ConfigMap mounted at MountPath.
	Files []File
	// WorkDir is the shards' working folder below MountPath, so that the
	// paths in Args resolve as they do where the sweep was emitted.
	WorkDir string
	// ScenarioClaim, if set, is a PersistentVolumeClaim holding the files
	// (instead of a ConfigMap).
	ScenarioClaim string
	// ResultsClaim, if set, is a PersistentVolumeClaim mounted at
	// ResultsPath where each shard writes its partial (instead of stdout).
	ResultsClaim string
	// Memory is what one shard needs (its runs in parallel); CPU its cores.
	Memory int64
	CPU    int
}

// Paths inside the shards' containers.
const (
	MountPath   = "/sweep"
	ResultsPath = "/results"
	// nonRootUID is distroless's nonroot user.
	nonRootUID = 65532
	// maxConfigMap is the API's limit on a ConfigMap's data.
	maxConfigMap = 1 << 20
)

// Manifests renders the ConfigMap (when there are files and no
// ScenarioClaim) and the Job, as YAML documents.
func Manifests(js JobSpec) ([]byte, error) {
	if js.Shards < 1 {
		return nil, fmt.Errorf("--shards %d: give the number of shards (the Job's completions), 1 or more", js.Shards)
	}
	if js.Parallelism < 1 || js.Parallelism > js.Shards {
		js.Parallelism = js.Shards
	}
	labels := map[string]string{"app.kubernetes.io/name": "clustersim-sweep", "app.kubernetes.io/instance": js.Name}
	var docs [][]byte
	workDir := MountPath
	if js.WorkDir != "" && js.WorkDir != "." {
		workDir = path.Join(MountPath, js.WorkDir)
	}
	var volumes []corev1.Volume
	var mounts []corev1.VolumeMount
	if js.ScenarioClaim != "" {
		volumes = append(volumes, corev1.Volume{Name: "scenarios", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: js.ScenarioClaim, ReadOnly: true}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "scenarios", MountPath: MountPath, ReadOnly: true})
	} else if len(js.Files) > 0 {
		cm := corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: js.Name + "-scenarios", Namespace: js.Namespace, Labels: labels},
			Data:       map[string]string{},
		}
		var items []corev1.KeyToPath
		size := 0
		for i, f := range js.Files {
			key := configMapKey(i, f.Path)
			cm.Data[key] = string(f.Data)
			size += len(key) + len(f.Data)
			items = append(items, corev1.KeyToPath{Key: key, Path: f.Path})
		}
		if size > maxConfigMap {
			return nil, fmt.Errorf("the sweep's files take %d bytes, more than a ConfigMap holds (1 MiB): put them on a volume and give its PersistentVolumeClaim with --scenario-claim", size)
		}
		out, err := yaml.Marshal(cm)
		if err != nil {
			return nil, err
		}
		docs = append(docs, out)
		volumes = append(volumes, corev1.Volume{Name: "scenarios", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}, Items: items}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "scenarios", MountPath: MountPath, ReadOnly: true})
	} else {
		workDir = ""
	}
	args := append([]string{"sweep"}, js.Args...)
	args = append(args, "--shards", strconv.Itoa(js.Shards), "--workers", strconv.Itoa(max(js.CPU, 1)))
	if js.ResultsClaim != "" {
		volumes = append(volumes, corev1.Volume{Name: "results", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: js.ResultsClaim}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "results", MountPath: ResultsPath})
		args = append(args, "--out", ResultsPath+"/")
	}
	mem := resource.NewQuantity(roundMiB(js.Memory), resource.BinarySI)
	cpu := resource.NewQuantity(int64(max(js.CPU, 1)), resource.DecimalSI)
	nonRoot := true
	uid := int64(nonRootUID)
	noEscalation := false
	ro := true
	completions := int32(js.Shards)
	parallelism := int32(js.Parallelism)
	backoff := int32(js.BackoffLimitPerIndex)
	mode := batchv1.IndexedCompletion
	job := batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: js.Name, Namespace: js.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode:       &mode,
			Completions:          &completions,
			Parallelism:          &parallelism,
			BackoffLimitPerIndex: &backoff,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:   corev1.RestartPolicyNever,
					SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &nonRoot, RunAsUser: &uid, RunAsGroup: &uid, FSGroup: &uid},
					Containers: []corev1.Container{{
						Name:       "sim",
						Image:      js.Image,
						Args:       args,
						WorkingDir: workDir,
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: *cpu, corev1.ResourceMemory: *mem},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: *mem},
						},
						VolumeMounts: mounts,
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &noEscalation, ReadOnlyRootFilesystem: &ro,
							Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
					}},
					Volumes: volumes,
				},
			},
		},
	}
	out, err := yaml.Marshal(job)
	if err != nil {
		return nil, err
	}
	docs = append(docs, out)
	return bytes.Join(docs, []byte("---\n")), nil
}

// configMapKey names file i's key: its number and base name, with the
// characters a key may not hold ([-._a-zA-Z0-9] only) replaced by '_'.
func configMapKey(i int, p string) string {
	base := []byte(path.Base(p))
	for k, c := range base {
		if !(c == '-' || c == '.' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			base[k] = '_'
		}
	}
	if len(base) > 200 {
		base = base[len(base)-200:]
	}
	return "f" + strconv.Itoa(i) + "-" + string(base)
}

// roundMiB rounds up to whole MiB.
func roundMiB(b int64) int64 { return (b + 1<<20 - 1) >> 20 << 20 }
