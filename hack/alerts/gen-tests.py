#!/usr/bin/env python3
"""Writes alerts/seedscaler.rules.test.yaml from the case table below.

promtool compares the annotations of a firing alert exactly, runbook text included; this
table keeps each case short (series, time, expected labels) and renders the expected
annotations from the rules file's templates with the case's label values, so a change of an
annotation is one edit in the rules. The expected *labels*, firing or not, are written here
by hand: they are what the tests check.
"""
import re, sys, yaml

RULES = "alerts/seedscaler.rules.yaml"
OUT = "alerts/seedscaler.rules.test.yaml"

rules = {}
for g in yaml.safe_load(open(RULES))["groups"]:
    for r in g["rules"]:
        rules[r["alert"]] = r

def render(text, labels, value):
    text = re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels.get(m.group(1), ""), text)
    return text.replace("{{ $value | humanizePercentage }}", value).replace("{{ $value }}", value)

def alert(name, labels, value=""):
    r = rules[name]
    exp_labels = dict(labels, severity=r["labels"]["severity"])
    return {"exp_labels": exp_labels,
            "exp_annotations": {k: render(v, labels, value) for k, v in r["annotations"].items()}}

S = lambda series, values: {"series": series, "values": values}
tests = []
def case(name, series, checks):
    tests.append({"name": name, "interval": "1m", "input_series": series, "alert_rule_test": checks})
def at(t, name, *alerts):
    return {"eval_time": t, "alertname": name, "exp_alerts": list(alerts)}

seed = lambda n, usage, alloc: [S('garden_seed_usage{name="%s",resource="shoots"}' % n, usage),
                                 S('garden_seed_allocatable{name="%s",resource="shoots"}' % n, alloc)]

case("seed above 90% for 15m fires; below never does",
     seed("a", "95x40", "100x40") + seed("b", "80x40", "100x40"),
     [at("10m", "SeedApproachingCapacity"),
      at("20m", "SeedApproachingCapacity", alert("SeedApproachingCapacity", {"name": "a"}, "95%"))])
case("hysteresis: keeps firing between 85% and 90%, resolves below 85%",
     seed("a", "95x20 87x20 80x20", "100x60"),
     [at("30m", "SeedApproachingCapacity", alert("SeedApproachingCapacity", {"name": "a"}, "87%")),
      at("50m", "SeedApproachingCapacity")])
case("a seed rising to 87% without crossing 90% does not fire",
     seed("a", "80x20 87x40", "100x60"),
     [at("50m", "SeedApproachingCapacity")])
case("full seed fires, one shoot short does not",
     seed("a", "100x10", "100x10") + seed("b", "99x10", "100x10"),
     [at("8m", "SeedFull", alert("SeedFull", {"name": "a"}))])
info = lambda n, p, r: S('garden_seed_info{name="%s",provider="%s",region="%s",visible="true",managedseedset="",namespace=""}' % (n, p, r), "1x30")
case("region exhausted while shoots pend fires; a region with room does not",
     seed("a", "10x30", "10x30") + seed("b", "5x30", "5x30") + seed("c", "3x30", "10x30") +
     [info("a", "gcp", "europe-west1"), info("b", "gcp", "europe-west1"), info("c", "gcp", "us-central1"),
      S('garden_shoots_unscheduled{provider="gcp",region="europe-west1"}', "4x30"),
      S('garden_shoots_unscheduled{provider="gcp",region="us-central1"}', "2x30")],
     [at("15m", "RegionCapacityExhausted", alert("RegionCapacityExhausted", {"provider": "gcp", "region": "europe-west1"}))])
case("no pending shoots: a full region does not page",
     seed("a", "10x30", "10x30") + [info("a", "gcp", "europe-west1"),
      S('garden_shoots_unscheduled{provider="gcp",region="europe-west1"}', "0x30")],
     [at("15m", "RegionCapacityExhausted")])
case("shoots pending for 15m fire; a short wait does not",
     [S('garden_shoots_unscheduled{provider="aws",region="eu-west-1"}', "3x30"),
      S('garden_shoots_unscheduled{provider="aws",region="us-east-1"}', "0x10 2x5 0x15")],
     [at("20m", "ShootsUnscheduled", alert("ShootsUnscheduled", {"provider": "aws", "region": "eu-west-1"}, "3"))])
case("a replica retried for 30m fires; no retries does not",
     [S('garden_managedseedset_status_pending_replica_retries{namespace="garden",name="eu"}', "2x40"),
      S('garden_managedseedset_status_pending_replica_retries{namespace="garden",name="us"}', "0x40")],
     [at("35m", "ManagedSeedSetReplicaStuck", alert("ManagedSeedSetReplicaStuck", {"namespace": "garden", "name": "eu"}, "2"))])
case("more replicas than asked for 30m fires; a set at its size does not",
     [S('garden_managedseedset_status_replicas{namespace="garden",name="eu"}', "5x40"),
      S('garden_managedseedset_spec_replicas{namespace="garden",name="eu"}', "3x40"),
      S('garden_managedseedset_status_replicas{namespace="garden",name="us"}', "3x40"),
      S('garden_managedseedset_spec_replicas{namespace="garden",name="us"}', "3x40")],
     [at("35m", "ManagedSeedSetScaleInBlocked", alert("ManagedSeedSetScaleInBlocked", {"namespace": "garden", "name": "eu"}))])
cond = lambda n, c, s, v: S('garden_seedautoscaler_condition{namespace="garden",name="%s",condition="%s",status="%s"}' % (n, c, s), v)
case("metrics unavailable for 10m fires; active scaling does not",
     [cond("eu", "ScalingActive", "False", "1x20"), cond("eu", "ScalingActive", "True", "0x20"),
      cond("us", "ScalingActive", "False", "0x20"), cond("us", "ScalingActive", "True", "1x20")],
     [at("15m", "SeedAutoscalerMetricsUnavailable", alert("SeedAutoscalerMetricsUnavailable",
        {"namespace": "garden", "name": "eu", "condition": "ScalingActive", "status": "False"}))])
sa = lambda n, desired, mx: [S('garden_seedautoscaler_status_desired_replicas{namespace="garden",name="%s"}' % n, desired),
                             S('garden_seedautoscaler_spec_max_replicas{namespace="garden",name="%s"}' % n, mx)]
case("held at maxReplicas while limited fires; at max without limit does not",
     sa("eu", "10x40", "10x40") + sa("us", "10x40", "10x40") +
     [cond("eu", "ScalingLimited", "True", "1x40"), cond("us", "ScalingLimited", "True", "0x40")],
     [at("35m", "SeedAutoscalerAtMaxReplicas", alert("SeedAutoscalerAtMaxReplicas", {"namespace": "garden", "name": "eu"}))])
for comp, alertname in (("exporter", "ExporterDown"), ("adapter", "AdapterDown")):
    case("%s target down fires" % comp,
         [S('up{job="seedscaler-%s",instance="10.0.0.1:8080"}' % comp, "0x10")],
         [at("8m", alertname, alert(alertname, {"job": "seedscaler-%s" % comp, "instance": "10.0.0.1:8080"}))])
    case("%s target gone fires" % comp,
         [S('up{job="something-else",instance="10.0.0.2:8080"}', "1x10")],
         [at("8m", alertname, alert(alertname, {}))])
    case("%s up does not fire" % comp,
         [S('up{job="seedscaler-%s",instance="10.0.0.1:8080"}' % comp, "1x10")],
         [at("8m", alertname)])

# Every alert also gets a case of its own where nothing may fire: the quiet series of the
# mixed cases above, alone (a mixed case alone could pass with a rule that always fires
# for every series when the firing one hides it).
case("one shoot short of full stays silent",
     seed("b", "99x10", "100x10"),
     [at("8m", "SeedFull")])
case("a short wait for a seed stays silent",
     [S('garden_shoots_unscheduled{provider="aws",region="us-east-1"}', "0x10 2x5 0x15")],
     [at("20m", "ShootsUnscheduled")])
case("a set without retries stays silent",
     [S('garden_managedseedset_status_pending_replica_retries{namespace="garden",name="us"}', "0x40")],
     [at("35m", "ManagedSeedSetReplicaStuck")])
case("a set at its size stays silent",
     [S('garden_managedseedset_status_replicas{namespace="garden",name="us"}', "3x40"),
      S('garden_managedseedset_spec_replicas{namespace="garden",name="us"}', "3x40")],
     [at("35m", "ManagedSeedSetScaleInBlocked")])
case("active scaling stays silent",
     [cond("us", "ScalingActive", "False", "0x20"), cond("us", "ScalingActive", "True", "1x20")],
     [at("15m", "SeedAutoscalerMetricsUnavailable")])
case("at max without a limit stays silent",
     sa("us", "10x40", "10x40") + [cond("us", "ScalingLimited", "True", "0x40")],
     [at("35m", "SeedAutoscalerAtMaxReplicas")])

missing = set(rules) - {c["alertname"] for t in tests for c in t["alert_rule_test"] if c["exp_alerts"]}
if missing:
    sys.exit("alerts without a firing test: %s" % sorted(missing))
quiet = set(rules) - {c["alertname"] for t in tests for c in t["alert_rule_test"] if not c["exp_alerts"]}
if quiet:
    sys.exit("alerts without a silent test: %s" % sorted(quiet))
with open(OUT, "w") as f:
    f.write("# Generated by hack/alerts/gen-tests.py from its case table; do not edit.\n")
    yaml.safe_dump({"rule_files": ["seedscaler.rules.yaml"], "evaluation_interval": "1m", "tests": tests},
                   f, sort_keys=False, width=120)
