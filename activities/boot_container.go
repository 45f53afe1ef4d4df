// The boot's container: its run, labels and disk size (boot.go drives it).

package activities

import (
	"context"
	"strconv"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/workflows/contract"
)

// runContainer starts a container of instance type it whose supervisor
// serves boot bootID, with /workspace on volume. A container that fails
// to start is removed, and the error says why it died when it did.
func (a *Activities) runContainer(ctx context.Context, name, volume, bootID string, it config.InstanceType, img bootImage,
	labels map[string]string, eb EgressBoot) (id, ip string, err error) {
	base := []string{supervisorapi.EnvBootID + "=" + bootID, supervisorapi.EnvListen + "=:" + contract.SupervisorPort}
	if n := a.diskBytes(it); n > 0 && a.Docker.DisksEnabled() {
		// The supervisor reports the disk's use (GET /v1/stats) only
		// when /workspace is the sandbox's own disk.
		base = append(base, supervisorapi.EnvDiskBytes+"="+strconv.FormatInt(n, 10))
	}
	id, ip, err = a.Docker.Run(ctx, dockerrt.Spec{
		Name: name, Image: img.Ref, Volume: volume, SupervisorHost: a.SupervisorPath, SeedWorkspace: img.seed,
		Env:      append(append(append(base, img.supervisorEnv()...), a.SupervisorEnv...), eb.Env...),
		ReadOnly: eb.ReadOnly, BeforeStart: eb.BeforeStart,
		// Never in the environment: that stays readable in /proc/1/environ.
		Files:    []dockerrt.File{{Path: supervisorapi.TokenFile, Mode: 0o400, Data: []byte(auth.SupervisorToken(a.Secret, bootID))}},
		Labels:   labels,
		NanoCPUs: it.NanoCPUs(), MemoryBytes: it.MemoryBytes(), Pids: it.Pids, DiskBytes: a.diskBytes(it),
	})
	if err == nil && !setCPUBurst(id, it.NanoCPUs()) {
		a.actLog(ctx).Debug("no CFS burst for the container's cgroup", zap.String("container", name))
	}
	err = imageRunError(img, err)
	if err != nil && id != "" {
		if exitErr := a.exited(ctx, id); exitErr != nil {
			err = exitErr // it died at once: say why
		}
		// Leave nothing half-started behind; the retry starts clean.
		_ = a.Docker.RemoveContainer(context.WithoutCancel(ctx), id)
	}
	return id, ip, err
}

// labelRestored records on a container which backup its workspace came from.
const labelRestored = "io.berth.restored"

// volumeLabels label a sandbox's workspace volume; LabelDisk sizes its disk.
func (a *Activities) volumeLabels(in contract.BootInput) map[string]string {
	labels := a.labels(in.Sandbox)
	if it, ok := a.InstanceTypes[in.InstanceType]; ok && a.diskBytes(it) > 0 {
		labels[dockerrt.LabelDisk] = strconv.FormatInt(a.diskBytes(it), 10)
	}
	return labels
}

// diskBytes is the disk of an instance type, 0 when disks are off.
func (a *Activities) diskBytes(it config.InstanceType) int64 {
	if a.NoDiskLimits {
		return 0
	}
	return it.DiskBytes()
}

func (a *Activities) labels(sandbox string) map[string]string {
	return map[string]string{
		dockerrt.LabelManaged:   "true",
		dockerrt.LabelSandbox:   sandbox,
		dockerrt.LabelHost:      a.HostID,
		dockerrt.LabelVersion:   a.Version,
		dockerrt.LabelNamespace: a.Namespace,
	}
}
