// Command etcd is the upstream etcd server. Debian's etcd-server (3.4.23) is older than
// what recent kube-apiserver expects (health endpoints), and etcd's own main package
// lives in the go.etcd.io/etcd/v3 module that cannot be required, so this mirrors
// etcd's main.go on top of the server module's etcdmain package.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
