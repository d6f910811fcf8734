// Command worker-objectbox is manydb's worker for ObjectBox (C library
// 5.3.2 through objectbox-go): variants obx, obx_cached and obx_nosync.
// It runs one phase of a study and is started by 'manydb run'.
//
// It links libobjectbox.so from third_party/objectbox/lib (fetched by
// make build) with an rpath to that folder.
package main

import (
	"os"

	"manydb/internal/engines/objectbox"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-objectbox",
		objectbox.Factories()))
}
