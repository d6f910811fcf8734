package engine

import "runtime/debug"

// ModuleVersion returns the version of Go module path that the running
// binary was built with, from its build info, or "" when it is not known.
// Pure-Go engines without a version string of their own use it to name
// their library version (the worker records every module version anyway).
func ModuleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}
