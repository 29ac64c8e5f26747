package cluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The sysctls the node needs: routing between the bridge and the Services' iptables rules,
// and bridged pod-to-pod traffic through iptables (replies of a Service's pod to a pod on
// the same bridge must pass conntrack to be translated back).
var sysctls = map[string]string{
	"net/ipv4/ip_forward":                 "1",
	"net/bridge/bridge-nf-call-iptables":  "1",
	"net/bridge/bridge-nf-call-ip6tables": "1",
}

func run(name string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}

// externalInterface is the interface of the machine's default route: the one pods' and
// Services' addresses must never leave through.
func externalInterface() (string, error) {
	out, err := run("ip", "-o", "route", "show", "default")
	if err != nil {
		return "", err
	}
	fields := strings.Fields(out)
	for i, f := range fields {
		if f == "dev" && i+1 < len(fields) {
			return fields[i+1], nil
		}
	}
	return "", fmt.Errorf("no default route (ip route show default: %q)", strings.TrimSpace(out))
}

// setUpNetwork sets the sysctls, creates the bridge with the node's address (the
// kube-apiserver advertises it: EndpointSlices refuse loopback), and inserts the guards.
func (c *Cluster) setUpNetwork() error {
	c.state.Sysctls = map[string]string{}
	for key, want := range sysctls {
		file := filepath.Join("/proc/sys", key)
		old, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("sysctl %s: %w (the kernel needs bridge netfilter, br_netfilter)", strings.ReplaceAll(key, "/", "."), err)
		}
		c.state.Sysctls[key] = strings.TrimSpace(string(old))
		if err := c.save(); err != nil {
			return err
		}
		if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
			return fmt.Errorf("sysctl %s=%s: %w", strings.ReplaceAll(key, "/", "."), want, err)
		}
	}

	if _, err := run("ip", "link", "add", Bridge, "type", "bridge"); err != nil {
		return err
	}
	c.state.Bridge = true
	if err := c.save(); err != nil {
		return err
	}
	if _, err := run("ip", "addr", "add", NodeIP+"/24", "dev", Bridge); err != nil {
		return err
	}
	if _, err := run("ip", "link", "set", Bridge, "up"); err != nil {
		return err
	}
	return c.insertGuards()
}

// insertGuards keeps the cluster's traffic on this machine: nothing addressed to or coming
// from a pod, or addressed to a Service, leaves through the external interface, and nothing
// from outside reaches the cluster's ports. The checks on leaving sit in mangle/POSTROUTING,
// after every routing decision: a packet to a Service is first routed by the default route,
// and only after kube-proxy's DNAT rerouted to the bridge. The machine's own traffic (its
// name server included) is untouched.
func (c *Cluster) insertGuards() error {
	ext, err := externalInterface()
	if err != nil {
		return err
	}
	guards := [][]string{
		{"mangle", "POSTROUTING", "-o", ext, "-d", PodCIDR, "-j", "DROP"},
		{"mangle", "POSTROUTING", "-o", ext, "-s", PodCIDR, "-j", "DROP"},
		{"mangle", "POSTROUTING", "-o", ext, "-d", ServiceCIDR, "-j", "DROP"},
		{"filter", "INPUT", "-i", ext, "-p", "tcp", "-m", "multiport", "--dports", "6443,10248:10259,12379,12380", "-j", "DROP"},
	}
	for _, g := range guards {
		args := append([]string{"-w", "-t", g[0], "-I", g[1], "1"}, append(g[2:], "-m", "comment", "--comment", GuardComment)...)
		if _, err := run("iptables", args...); err != nil {
			return err
		}
	}
	return nil
}

// GuardComment marks the iptables rules insertGuards inserts: Down, and an Up after a
// crashed run, find and remove them by it (guardDeletes).
const GuardComment = "seedscaler-cluster guard"

// guardDeletes returns the iptables arguments that delete every guard on the machine.
func guardDeletes() ([][]string, error) {
	var deletes [][]string
	for _, table := range iptablesTables {
		out, err := run("iptables", "-w", "-t", table, "-S")
		if err != nil {
			return nil, err
		}
		deletes = append(deletes, guardRules(table, out)...)
	}
	return deletes, nil
}

// guardRules returns, for the rules `iptables -t table -S` printed, the iptables arguments
// that delete the guards among them (the rules carrying GuardComment).
func guardRules(table, rules string) [][]string {
	var deletes [][]string
	for _, line := range strings.Split(rules, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "-A" || !strings.Contains(line, `"`+GuardComment+`"`) {
			continue
		}
		deletes = append(deletes, append([]string{"-w", "-t", table, "-D"}, unquote(f[1:])...))
	}
	return deletes
}

var iptablesTables = []string{"filter", "nat", "mangle"}

// chains lists the chains of an iptables table.
func chains(table string) ([]string, error) {
	out, err := run("iptables", "-w", "-t", table, "-S")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "-N" || f[0] == "-P") {
			names = append(names, f[1])
		}
	}
	return names, nil
}

func (c *Cluster) recordNetworkBefore() error {
	c.state.ChainsBefore = map[string][]string{}
	for _, t := range iptablesTables {
		names, err := chains(t)
		if err != nil {
			return err
		}
		c.state.ChainsBefore[t] = names
	}
	ns, err := netns()
	if err != nil {
		return err
	}
	c.state.NetnsBefore = ns
	if c.state.IPSetsBefore, err = ipsets(); err != nil {
		return err
	}
	return c.save()
}

// ipsets lists the names of the machine's ipsets.
func ipsets() ([]string, error) {
	out, err := run("ipset", "list", "-n")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

func netns() ([]string, error) {
	entries, err := os.ReadDir("/var/run/netns")
	if os.IsNotExist(err) {
		return nil, nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names, err
}

// tearDownNetwork undoes setUpNetwork and removes what the kubelet, kube-proxy, kube-router
// and the CNI plugins left in iptables: chains that did not exist before Up, and the rules
// that jump to them; then kube-router's ipsets.
func tearDownNetwork(st *state, report func(string, error)) {
	for t, before := range st.ChainsBefore {
		existed := map[string]bool{}
		for _, n := range before {
			existed[n] = true
		}
		now, err := chains(t)
		if err != nil {
			report("listing iptables chains", err)
			continue
		}
		var ours []string
		for _, n := range now {
			if !existed[n] && (strings.HasPrefix(n, "KUBE-") || strings.HasPrefix(n, "CNI-")) {
				ours = append(ours, n)
			}
		}
		removeChains(t, ours, report)
	}
	// The NetworkPolicy engine's ipsets, once no rule refers to them.
	if now, err := ipsets(); err != nil {
		report("listing ipsets", err)
	} else {
		for _, n := range now {
			if !slices.Contains(st.IPSetsBefore, n) && (strings.HasPrefix(n, "KUBE-") || strings.HasPrefix(n, "kube-router-")) {
				if _, err := run("ipset", "destroy", n); err != nil {
					report("destroying ipset "+n, err)
				}
			}
		}
	}
	if guards, err := guardDeletes(); err != nil {
		report("listing the guards", err)
	} else {
		for _, g := range guards {
			if _, err := run("iptables", g...); err != nil {
				report("removing a guard", err)
			}
		}
	}
	if st.Bridge {
		if _, err := run("ip", "link", "del", Bridge); err != nil && !strings.Contains(err.Error(), "Cannot find device") {
			report("deleting the bridge", err)
		}
	}
	before := map[string]bool{}
	for _, n := range st.NetnsBefore {
		before[n] = true
	}
	if names, err := netns(); err == nil {
		for _, n := range names {
			if !before[n] && strings.HasPrefix(n, "cni-") {
				if _, err := run("ip", "netns", "delete", n); err != nil {
					report("deleting network namespace "+n, err)
				}
			}
		}
	}
	for key, old := range st.Sysctls {
		if err := os.WriteFile(filepath.Join("/proc/sys", key), []byte(old), 0o644); err != nil {
			report("restoring sysctl "+key, err)
		}
	}
}

// removeChains deletes the rules of other chains that jump to names, then flushes and
// deletes the chains themselves.
func removeChains(table string, names []string, report func(string, error)) {
	if len(names) == 0 {
		return
	}
	ours := map[string]bool{}
	for _, n := range names {
		ours[n] = true
	}
	out, err := run("iptables", "-w", "-t", table, "-S")
	if err != nil {
		report("listing iptables rules", err)
		return
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "-A" || ours[f[1]] {
			continue
		}
		for i := 2; i+1 < len(f); i++ {
			if (f[i] == "-j" || f[i] == "-g") && ours[f[i+1]] {
				args := append([]string{"-w", "-t", table, "-D"}, unquote(f[1:])...)
				if _, err := run("iptables", args...); err != nil {
					report("removing a jump to "+f[i+1], err)
				}
				break
			}
		}
	}
	for _, n := range names {
		_, _ = run("iptables", "-w", "-t", table, "-F", n)
	}
	for _, n := range names {
		if _, err := run("iptables", "-w", "-t", table, "-X", n); err != nil {
			report("deleting chain "+n, err)
		}
	}
}

// unquote strips the quotes `iptables -S` puts around comments, so that the rule can be
// passed back as arguments.
func unquote(fields []string) []string {
	joined := strings.Join(fields, " ")
	var args []string
	var cur strings.Builder
	inQuote := false
	for _, r := range joined {
		switch {
		case r == '"':
			inQuote = !inQuote
		case r == ' ' && !inQuote:
			if cur.Len() > 0 {
				args = append(args, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		args = append(args, cur.String())
	}
	return args
}
