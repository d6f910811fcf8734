package measure

import "testing"

func TestProcField(t *testing.T) {
	in := []byte("processor\t: 0\nmodel name\t: Example CPU @ 2.00GHz\nmodel name\t: second\nflags\t\t: fpu vme\n")
	if v, ok := procField(in, "model name"); !ok || v != "Example CPU @ 2.00GHz" {
		t.Errorf("model name = %q, %v; want the first line's value", v, ok)
	}
	if v, ok := procField(in, "model"); ok {
		t.Errorf("model = %q: a key must match whole", v)
	}
}

func TestMountFSType(t *testing.T) {
	mounts := []byte(`/dev/sda1 / ext4 rw,relatime 0 0
proc /proc proc rw,nosuid 0 0
tmpfs /dev/shm tmpfs rw,nosuid 0 0
/dev/sdb1 /data xfs rw 0 0
`)
	for abs, want := range map[string]string{"/": "ext4", "/home/x": "ext4", "/dev/shm/a": "tmpfs", "/data": "xfs", "/database": "ext4", "/data/x/y": "xfs"} {
		if got, ok := mountFSType(mounts, abs); !ok || got != want {
			t.Errorf("%s: %q, %v; want %q", abs, got, ok, want)
		}
	}
	if got, ok := mountFSType([]byte("proc /proc proc rw 0 0\n"), "/home"); ok {
		t.Errorf("/home with only /proc mounted: %q, want no match", got)
	}
}

func TestMachine(t *testing.T) {
	if k, err := KernelRelease(); err != nil || k == "" {
		t.Errorf("KernelRelease = %q, %v", k, err)
	}
	if kb, err := MemTotalKB(); err != nil || kb <= 0 {
		t.Errorf("MemTotalKB = %d, %v", kb, err)
	}
	if fs, err := FSType("/proc/self"); err != nil || fs != "proc" {
		t.Errorf("FSType(/proc/self) = %q, %v; want proc", fs, err)
	}
	if fs, err := FSType(t.TempDir()); err != nil || fs == "" {
		t.Errorf("FSType of a temporary directory = %q, %v", fs, err)
	}
}
