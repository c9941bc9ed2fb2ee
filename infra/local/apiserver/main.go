// Command kube-apiserver is the upstream API server, built from the k8s.io/kubernetes
// module so the local cluster needs no container engine. It mirrors
// k8s.io/kubernetes/cmd/kube-apiserver/apiserver.go, which is package main and so
// cannot be imported.
package main

import (
	"os"
	_ "time/tzdata" // CronJob time zones, as upstream

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // --logging-format=json, as upstream
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
