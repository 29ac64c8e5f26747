#!/usr/bin/env python3
"""Writes alerts/seedscaler.rules.test.yaml from the case table below.

promtool compares the annotations of a firing alert exactly; this table keeps each case short
(series, time, expected labels) and renders the expected annotations from the rules file's
templates with the case's label values, so a change of an annotation is one edit in the rules.
The expected *labels*, firing or not, are written here by hand: they are what the tests check.

The input series look as Prometheus stores them under prometheus-operator with the chart's
ServiceMonitors: every series carries the target labels job, namespace, pod, instance,
service, endpoint and container, except that a label the part writes itself wins (honorLabels),
and the exporter and the scheduler run two replicas. Each exporter replica serves the same
series; the scheduler's leader does the work and serves the pending gauge, the other replica
serves its counters at zero.
"""
import re, sys, yaml

RULES = "alerts/seedscaler.rules.yaml"
OUT = "alerts/seedscaler.rules.test.yaml"

rules = {}
for g in yaml.safe_load(open(RULES))["groups"]:
    for r in g["rules"]:
        if "alert" in r:
            rules[r["alert"]] = r

def render(text, labels, value):
    text = re.sub(r"\{\{ \$labels\.(\w+) \}\}", lambda m: labels.get(m.group(1), ""), text)
    for template in ("{{ $value | humanizePercentage }}", "{{ $value | humanize }}", "{{ $value }}"):
        text = text.replace(template, value)
    return text

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

# --- Targets as prometheus-operator labels them -------------------------------------------

RELEASE_NS = "seedscaler-system"
PARTS = ["scheduler", "seed-controller", "set-controller", "exporter", "adapter", "autoscaler"]
POD_SUFFIXES = ["7c9f8d6b4d-2kx9q", "7c9f8d6b4d-tq8mz", "7c9f8d6b4d-5bwhr"]

def target(part, replica, job=None):
    """The target labels of one pod of a part (job overridable for a look-alike job)."""
    return {"job": job or "seedscaler-" + part, "namespace": RELEASE_NS,
            "pod": "seedscaler-%s-%s" % (part, POD_SUFFIXES[replica]),
            "instance": "10.244.%d.%d:8080" % (replica, 10 + PARTS.index(part)),
            "service": "seedscaler-%s-metrics" % part, "endpoint": "metrics", "container": part}

def deduplicated(part, own):
    """The labels of a part's series after max without (instance, pod)."""
    labels = {k: v for k, v in target(part, 0).items() if k not in ("instance", "pod")}
    labels.update(own)
    return labels

def selector(name, labels):
    return "%s{%s}" % (name, ",".join('%s="%s"' % kv for kv in labels.items()))

def scraped(part, replica, name, own, values):
    # honorLabels: the part's own labels win over the target's.
    return S(selector(name, dict(target(part, replica), **own)), values)

def samples(values):
    """How many samples a promtool values string expands to."""
    return sum(int(t.split("x")[1]) + 1 if "x" in t else 1 for t in values.split())

def exporter(name, own, values, replicas=2):
    """A series of the exporter: every replica serves it with the same values."""
    return [scraped("exporter", i, name, own, values) for i in range(replicas)]

def leader(part, name, own, values, replicas=2):
    """A series of a leader-elected part: the leader (first pod) has the values, the other
    replicas serve the counter at zero."""
    standby = "0x%d" % (samples(values) - 1)
    return [scraped(part, i, name, own, values if i == 0 else standby) for i in range(replicas)]

# --- Capacity ------------------------------------------------------------------------------

seed = lambda n, usage, alloc: (exporter("garden_seed_usage", {"name": n, "resource": "shoots"}, usage) +
                                exporter("garden_seed_allocatable", {"name": n, "resource": "shoots"}, alloc))

case("seed above 90% for 15m fires; below never does",
     seed("gcp-ew1-0", "95x40", "100x40") + seed("gcp-ew1-1", "80x40", "100x40"),
     [at("10m", "SeedApproachingCapacity"),
      at("20m", "SeedApproachingCapacity", alert("SeedApproachingCapacity", {"name": "gcp-ew1-0"}, "95%"))])
case("hysteresis: keeps firing between 85% and 90%, resolves below 85%",
     seed("gcp-ew1-0", "95x20 87x20 80x20", "100x60"),
     [at("30m", "SeedApproachingCapacity", alert("SeedApproachingCapacity", {"name": "gcp-ew1-0"}, "87%")),
      at("50m", "SeedApproachingCapacity")])
case("a seed rising to 87% without crossing 90% does not fire",
     seed("gcp-ew1-0", "80x20 87x40", "100x60"),
     [at("50m", "SeedApproachingCapacity")])
case("full seed fires, one shoot short does not",
     seed("gcp-ew1-0", "100x10", "100x10") + seed("gcp-ew1-1", "99x10", "100x10"),
     [at("8m", "SeedFull", alert("SeedFull", {"name": "gcp-ew1-0"}))])
case("one shoot short of full stays silent",
     seed("gcp-ew1-1", "99x10", "100x10"),
     [at("8m", "SeedFull")])

def info(n, provider, region, visible="true", managedseedset=""):
    own = {"name": n, "provider": provider, "region": region, "visible": visible, "managedseedset": managedseedset}
    if managedseedset:
        own["namespace"] = "garden"
    return exporter("garden_seed_info", own, "1x30")
unscheduled = lambda provider, region, values: exporter("garden_shoots_unscheduled", {"provider": provider, "region": region}, values)

case("region exhausted while shoots pend fires; a region with room does not",
     seed("gcp-ew1-0", "10x30", "10x30") + seed("gcp-ew1-1", "5x30", "5x30") + seed("gcp-uc1-0", "3x30", "10x30") +
     info("gcp-ew1-0", "gcp", "europe-west1", managedseedset="ew1") + info("gcp-ew1-1", "gcp", "europe-west1") +
     info("gcp-uc1-0", "gcp", "us-central1") +
     unscheduled("gcp", "europe-west1", "4x30") + unscheduled("gcp", "us-central1", "2x30"),
     [at("15m", "RegionCapacityExhausted", alert("RegionCapacityExhausted", {"provider": "gcp", "region": "europe-west1"}))])
case("no pending shoots: a full region does not page",
     seed("gcp-ew1-0", "10x30", "10x30") + info("gcp-ew1-0", "gcp", "europe-west1") +
     unscheduled("gcp", "europe-west1", "0x30"),
     [at("15m", "RegionCapacityExhausted")])
case("an invisible full seed leaves no room either; a visible seed with room does",
     seed("gcp-ew1-0", "10x30", "10x30") + seed("gcp-ew1-1", "2x30", "10x30") +
     info("gcp-ew1-0", "gcp", "europe-west1") + info("gcp-ew1-1", "gcp", "europe-west1", visible="false") +
     seed("gcp-uc1-0", "10x30", "10x30") + seed("gcp-uc1-1", "2x30", "10x30") +
     info("gcp-uc1-0", "gcp", "us-central1") + info("gcp-uc1-1", "gcp", "us-central1") +
     unscheduled("gcp", "europe-west1", "1x30") + unscheduled("gcp", "us-central1", "1x30"),
     [at("15m", "RegionCapacityExhausted", alert("RegionCapacityExhausted", {"provider": "gcp", "region": "europe-west1"}))])

# --- Scheduling ----------------------------------------------------------------------------

case("shoots pending for 15m fire, counted once; a short wait does not",
     unscheduled("aws", "eu-west-1", "3x30") + unscheduled("aws", "us-east-1", "0x10 2x5 0x15"),
     [at("20m", "ShootsUnscheduled", alert("ShootsUnscheduled", {"provider": "aws", "region": "eu-west-1"}, "3"))])
case("a short wait for a seed stays silent",
     unscheduled("aws", "us-east-1", "0x10 2x5 0x15"),
     [at("20m", "ShootsUnscheduled")])

attempts = lambda result, values: leader("scheduler", "seedscaler_scheduler_schedule_attempts_total", {"result": result}, values)
case("half of the binds failing for 15m fires once for the scheduler",
     attempts("scheduled", "0+6x40") + attempts("error", "0+6x40") + attempts("unschedulable", "0+6x40"),
     [at("10m", "SchedulerBindsFailing"),
      at("30m", "SchedulerBindsFailing", alert("SchedulerBindsFailing", {"namespace": RELEASE_NS, "job": "seedscaler-scheduler"}, "50%"))])
case("an occasional conflict and many unschedulable shoots stay silent",
     attempts("scheduled", "0+20x40") + attempts("error", "0+0.2x40") + attempts("unschedulable", "0+50x40"),
     [at("30m", "SchedulerBindsFailing")])

def led(part, name, own, values):
    """A gauge only the leader of a part serves (the other replicas serve no such series)."""
    return [scraped(part, 0, name, own, values)]

drain = lambda seed, state, values: led("scheduler", "seedscaler_scheduler_drain_shoots", {"seed": seed, "state": state}, values)
def draining(seed, remaining, migrating, waiting, blocked):
    return (drain(seed, "remaining", remaining) + drain(seed, "migrating", migrating) +
            drain(seed, "waiting", waiting) + drain(seed, "blocked", blocked))
case("a drain whose shoots cannot leave for 30m fires; one still moving does not",
     draining("gcp-ew1-3", "2x40", "0x40", "0x40", "2x40") + draining("gcp-ew1-4", "9x40", "1x40", "3x40", "2x40"),
     [at("20m", "SeedDrainStuck"),
      at("35m", "SeedDrainStuck", alert("SeedDrainStuck",
         dict(deduplicated("scheduler", {"seed": "gcp-ew1-3", "state": "blocked"})), "2"))])
case("a drain that moves, or waits for its budget, with a blocked shoot stays silent",
     draining("gcp-ew1-4", "9x40", "1x40", "3x40", "2x40") + draining("gcp-ew1-5", "6x40", "0x40", "4x40", "2x40") +
     draining("gcp-ew1-6", "0x40", "0x40", "0x40", "0x40"),
     [at("35m", "SeedDrainStuck")])

# --- Seed management -----------------------------------------------------------------------

mss = lambda metric, n, values: exporter("garden_managedseedset_" + metric, {"namespace": "garden", "name": n}, values)
case("a replica retried for 30m fires; no retries does not",
     mss("status_pending_replica_retries", "eu", "2x40") + mss("status_pending_replica_retries", "us", "0x40"),
     [at("35m", "ManagedSeedSetReplicaStuck", alert("ManagedSeedSetReplicaStuck",
        deduplicated("exporter", {"namespace": "garden", "name": "eu"}), "2"))])
case("a set without retries stays silent",
     mss("status_pending_replica_retries", "us", "0x40"),
     [at("35m", "ManagedSeedSetReplicaStuck")])
case("more replicas than asked for 30m fires; a set at its size does not",
     mss("status_replicas", "eu", "5x40") + mss("spec_replicas", "eu", "3x40") +
     mss("status_replicas", "us", "3x40") + mss("spec_replicas", "us", "3x40"),
     [at("35m", "ManagedSeedSetScaleInBlocked", alert("ManagedSeedSetScaleInBlocked", {"namespace": "garden", "name": "eu"}))])
case("a set at its size stays silent",
     mss("status_replicas", "us", "3x40") + mss("spec_replicas", "us", "3x40"),
     [at("35m", "ManagedSeedSetScaleInBlocked")])

# --- Autoscaling ---------------------------------------------------------------------------

cond = lambda n, c, s, v: exporter("garden_seedautoscaler_condition", {"namespace": "garden", "name": n, "condition": c, "status": s}, v)
sa = lambda metric, n, values: exporter("garden_seedautoscaler_" + metric, {"namespace": "garden", "name": n}, values)

def reason(n, r, values="1x20"):
    """The reason series of ScalingActive of SeedAutoscaler n, for as long as values lasts."""
    return exporter("garden_seedautoscaler_condition_reason", {"namespace": "garden", "name": n, "condition": "ScalingActive", "reason": r}, values)

def scaling_active(n, status, r, values="1x20"):
    """ScalingActive of SeedAutoscaler n as the exporter serves it: the status series (1 for
    status, 0 for the others) and the reason series."""
    others = values.replace("1x", "0x")
    return [s for st in ("True", "False", "Unknown") for s in cond(n, "ScalingActive", st, values if st == status else others)] + reason(n, r, values)
scaling = lambda n: deduplicated("exporter", {"namespace": "garden", "name": n, "condition": "ScalingActive"})
misconfigured = lambda n, reason: dict(scaling(n), reason=reason)

case("metrics missing for 10m fire; valid metrics do not",
     scaling_active("eu", "False", "IncompleteMetrics") + scaling_active("us", "True", "ValidMetricFound") +
     sa("status_current_replicas", "eu", "3x20") + sa("spec_min_replicas", "eu", "1x20"),
     [at("5m", "SeedAutoscalerMetricsUnavailable"),
      at("15m", "SeedAutoscalerMetricsUnavailable", alert("SeedAutoscalerMetricsUnavailable", scaling("eu")))])
case("metrics missing with the target at zero fire, whatever minReplicas says",
     scaling_active("eu", "False", "FailedGetPendingMetric") +
     sa("status_current_replicas", "eu", "0x20") + sa("spec_min_replicas", "eu", "1x20") +
     scaling_active("us", "False", "FailedGetResourceMetric") +
     sa("status_current_replicas", "us", "0x20") + sa("spec_min_replicas", "us", "0x20"),
     [at("15m", "SeedAutoscalerMetricsUnavailable", alert("SeedAutoscalerMetricsUnavailable", scaling("eu")),
         alert("SeedAutoscalerMetricsUnavailable", scaling("us")))])
case("a reason moving from one missing-metrics reason to another keeps the alert pending and firing",
     scaling_active("eu", "False", "IncompleteMetrics", "1x6") +
     reason("eu", "FailedGetResourceMetric", "_x6 1x8") + reason("eu", "FallbackActive", "_x14 1x6"),
     [at("12m", "SeedAutoscalerMetricsUnavailable", alert("SeedAutoscalerMetricsUnavailable", scaling("eu"))),
      at("19m", "SeedAutoscalerMetricsUnavailable", alert("SeedAutoscalerMetricsUnavailable", scaling("eu")))])
case("valid metrics, and seeds not ready to measure yet, stay silent",
     scaling_active("eu", "True", "ValidMetricFound") + scaling_active("us", "True", "WaitingForSeeds"),
     [at("15m", "SeedAutoscalerMetricsUnavailable"), at("15m", "SeedAutoscalerMisconfigured")])
case("a target scaled to zero by hand (ScalingDisabled) and a paused one (ScalingPaused) stay silent",
     scaling_active("eu", "False", "ScalingDisabled") + cond("eu", "ScaledToZero", "True", "0x20") +
     sa("status_current_replicas", "eu", "0x20") + sa("spec_min_replicas", "eu", "1x20") +
     scaling_active("us", "False", "ScalingPaused") +
     sa("status_current_replicas", "us", "2x20") + sa("spec_min_replicas", "us", "1x20"),
     [at("15m", "SeedAutoscalerMetricsUnavailable"), at("15m", "SeedAutoscalerMisconfigured")])
case("an unusable selector for 10m fires only SeedAutoscalerMisconfigured",
     scaling_active("eu", "False", "InvalidSelector") +
     sa("status_current_replicas", "eu", "3x20") + sa("spec_min_replicas", "eu", "1x20"),
     [at("5m", "SeedAutoscalerMisconfigured"),
      at("15m", "SeedAutoscalerMisconfigured", alert("SeedAutoscalerMisconfigured", misconfigured("eu", "InvalidSelector"))),
      at("15m", "SeedAutoscalerMetricsUnavailable")])
case("a bad capacity annotation, an unknown parent gardenlet, a bad price and a bad pause annotation fire, each with its reason",
     scaling_active("eu", "False", "InvalidCapacityAnnotation") + scaling_active("us", "False", "InvalidPausedReplicas") +
     scaling_active("sa", "False", "UnknownReplicaCapacity") + scaling_active("af", "False", "InvalidPriceAnnotation") +
     scaling_active("ap", "True", "ValidMetricFound"),
     [at("15m", "SeedAutoscalerMisconfigured",
         alert("SeedAutoscalerMisconfigured", misconfigured("af", "InvalidPriceAnnotation")),
         alert("SeedAutoscalerMisconfigured", misconfigured("eu", "InvalidCapacityAnnotation")),
         alert("SeedAutoscalerMisconfigured", misconfigured("sa", "UnknownReplicaCapacity")),
         alert("SeedAutoscalerMisconfigured", misconfigured("us", "InvalidPausedReplicas"))),
      at("15m", "SeedAutoscalerMetricsUnavailable")])
paused = lambda n, r: exporter("garden_seedautoscaler_condition_reason", {"namespace": "garden", "name": n, "condition": "DirectionPaused", "reason": r}, "1x20")
case("a pause annotation that is neither true nor false fires; a direction paused on purpose does not",
     paused("eu", "InvalidPauseAnnotation") + paused("us", "ScaleInPaused"),
     [at("15m", "SeedAutoscalerMisconfigured",
         alert("SeedAutoscalerMisconfigured", dict(deduplicated("exporter", {"namespace": "garden", "name": "eu", "condition": "DirectionPaused"}), reason="InvalidPauseAnnotation")))])
budgets = lambda n, r: exporter("garden_seedautoscaler_condition_reason", {"namespace": "garden", "name": n, "condition": "DisruptionBudgetsValid", "reason": r}, "1x20")
case("a disruption budget whose schedule cannot be read fires; valid budgets do not",
     budgets("eu", "InvalidDisruptionBudget") + budgets("us", "BudgetsValid"),
     [at("15m", "SeedAutoscalerMisconfigured",
         alert("SeedAutoscalerMisconfigured", dict(deduplicated("exporter", {"namespace": "garden", "name": "eu", "condition": "DisruptionBudgetsValid"}), reason="InvalidDisruptionBudget")))])
able = lambda n, r: exporter("garden_seedautoscaler_condition_reason", {"namespace": "garden", "name": n, "condition": "AbleToScale", "reason": r}, "1x20")
case("a scale target the cluster does not back fires, each with its reason; a passing read of the scale does not",
     able("eu", "MissingScaleSubresource") + able("us", "TargetNotFound") + able("ap", "ReadyForNewScale") +
     able("sa", "FailedGetScale"),
     [at("15m", "SeedAutoscalerMisconfigured",
         alert("SeedAutoscalerMisconfigured", dict(deduplicated("exporter", {"namespace": "garden", "name": "eu", "condition": "AbleToScale"}), reason="MissingScaleSubresource")),
         alert("SeedAutoscalerMisconfigured", dict(deduplicated("exporter", {"namespace": "garden", "name": "us", "condition": "AbleToScale"}), reason="TargetNotFound")))])
case("a selector fixed within minutes stays silent",
     scaling_active("eu", "False", "InvalidSelector", "1x4") + reason("eu", "ValidMetricFound", "_x4 1x15"),
     [at("15m", "SeedAutoscalerMisconfigured")])

case("held at maxReplicas while limited fires; at max without limit does not",
     sa("status_desired_replicas", "eu", "10x40") + sa("spec_max_replicas", "eu", "10x40") +
     sa("status_desired_replicas", "us", "10x40") + sa("spec_max_replicas", "us", "10x40") +
     cond("eu", "ScalingLimited", "True", "1x40") + cond("us", "ScalingLimited", "True", "0x40"),
     [at("35m", "SeedAutoscalerAtMaxReplicas", alert("SeedAutoscalerAtMaxReplicas", {"namespace": "garden", "name": "eu"}))])
case("at max without a limit stays silent",
     sa("status_desired_replicas", "us", "10x40") + sa("spec_max_replicas", "us", "10x40") +
     cond("us", "ScalingLimited", "True", "0x40"),
     [at("35m", "SeedAutoscalerAtMaxReplicas")])

# kube-prometheus-stack scrapes the kube-apiservers of the cluster's control plane (two here)
# as job="apiserver"; each reports its own view of every APIService.
def apiservice(name, values_per_apiserver):
    return [S(selector("aggregator_unavailable_apiservice",
                       {"job": "apiserver", "namespace": "default", "service": "kubernetes", "endpoint": "https",
                        "instance": "172.18.0.%d:6443" % (2 + i), "name": name}), v)
            for i, v in enumerate(values_per_apiserver)]
apiserver_labels = {"job": "apiserver", "namespace": "default", "service": "kubernetes", "endpoint": "https"}
case("the custom metrics APIService unavailable to one kube-apiserver for 5m fires once",
     apiservice("v1beta2.custom.metrics.k8s.io", ["1x10", "0x10"]) + apiservice("v1beta1.custom.metrics.k8s.io", ["0x10", "0x10"]),
     [at("3m", "MetricsAPIServiceUnavailable"),
      at("8m", "MetricsAPIServiceUnavailable", alert("MetricsAPIServiceUnavailable",
         dict(apiserver_labels, name="v1beta2.custom.metrics.k8s.io")))])
case("another server's metrics APIService unavailable stays silent",
     apiservice("v1beta1.metrics.k8s.io", ["1x10", "1x10"]) + apiservice("v1beta1.external.metrics.k8s.io", ["0x10", "0x10"]),
     [at("8m", "MetricsAPIServiceUnavailable")])

# --- Health --------------------------------------------------------------------------------

DOWN = {"exporter": "ExporterDown", "adapter": "AdapterDown", "scheduler": "SchedulerDown",
        "seed-controller": "SeedControllerDown", "set-controller": "SetControllerDown", "autoscaler": "AutoscalerDown"}
# Jobs of a kube-prometheus-stack cluster that look like seedscaler's parts.
LOOKALIKES = {"exporter": "node-exporter", "adapter": "prometheus-adapter", "scheduler": "kube-scheduler",
              "seed-controller": "gardenlet", "set-controller": "gardenlet", "autoscaler": "cluster-autoscaler"}
def up(part, values_per_replica, job=None):
    return [S(selector("up", target(part, i, job)), v) for i, v in enumerate(values_per_replica)]

for part, alertname in DOWN.items():
    case("every %s replica down fires once" % part,
         up(part, ["0x10", "0x10"]),
         [at("8m", alertname, alert(alertname, deduplicated(part, {})))])
    case("no %s target, while %s is scraped, fires" % (part, LOOKALIKES[part]),
         up(part, ["1x10"], job=LOOKALIKES[part]),
         [at("8m", alertname, alert(alertname, {"job": "seedscaler-" + part}))])
    case("one %s replica of two down, and %s down, stays silent" % (part, LOOKALIKES[part]),
         up(part, ["1x10", "0x10"]) + up(part, ["0x10"], job=LOOKALIKES[part]),
         [at("8m", alertname)])

def reconciles(part, controller, errors, total, replicas=1, job=None):
    own = {"controller": controller}
    series = leader(part, "controller_runtime_reconcile_errors_total", own, errors, replicas)
    series += leader(part, "controller_runtime_reconcile_total", dict(own, result="error"), errors, replicas)
    series += leader(part, "controller_runtime_reconcile_total", dict(own, result="success"), total, replicas)
    if job:
        series = [S(s["series"].replace('job="seedscaler-%s"' % part, 'job="%s"' % job), s["values"]) for s in series]
    return series

case("half of the set controller's reconciles failing for 15m fires",
     reconciles("set-controller", "managedseedset", "0+3x40", "0+3x40", replicas=2),
     [at("10m", "ControllerReconcileErrors"),
      at("30m", "ControllerReconcileErrors", alert("ControllerReconcileErrors",
         {"namespace": RELEASE_NS, "job": "seedscaler-set-controller", "controller": "managedseedset"}, "50%"))])
case("every reconcile of the scheduler's leader failing fires once",
     reconciles("scheduler", "scheduler", "0+2x40", "0x40", replicas=2),
     [at("30m", "ControllerReconcileErrors", alert("ControllerReconcileErrors",
         {"namespace": RELEASE_NS, "job": "seedscaler-scheduler", "controller": "scheduler"}, "100%"))])
case("an occasional conflict, and a gardenlet's managedseed controller failing, stay silent",
     reconciles("seed-controller", "managedseed", "0+0.2x40", "0+20x40") +
     reconciles("seed-controller", "managedseed", "0+5x40", "0x40", job="gardenlet"),
     [at("30m", "ControllerReconcileErrors")])

# --- Service level of shoots waiting for a seed ------------------------------------------

WAIT = "garden_shoot_scheduling_wait_seconds"

def counter(phases):
    """A counter's values that grows, for each phase (minutes, increase per minute), by the
    increase every minute of the phase; the first phase starts at 0 at minute 0."""
    tokens, value = [], 0
    for i, (minutes, per_minute) in enumerate(phases):
        if i == 0:
            tokens.append("0+%gx%d" % (per_minute, minutes))
            value = per_minute * minutes
        else:
            tokens.append("%g+%gx%d" % (value + per_minute, per_minute, minutes - 1))
            value += per_minute * minutes
    return " ".join(tokens)

def waits(phases, set_="soil", region="europe-west1"):
    """The wait histogram of the shoots bound to one set's seeds in one region, as every
    exporter replica serves it, with le as Prometheus 3 stores it ("60.0"): for each phase
    (minutes, binds per minute, of which late per minute), a late shoot waited between 60 s
    and 600 s, half of the others under 45 s. le="600.0" makes sure the threshold's bucket is
    matched exactly."""
    own = {"managedseedset": set_, "region": region}
    if set_:
        own["namespace"] = "garden"
    good = [(m, binds - late) for m, binds, late in phases]
    every = [(m, binds) for m, binds, _ in phases]
    series = []
    for le, per in (("45.0", [(m, g / 2) for m, g in good]), ("60.0", good), ("600.0", every), ("+Inf", every)):
        series += exporter(WAIT + "_bucket", dict(own, le=le), counter(per))
    return series + exporter(WAIT + "_count", own, counter(every))

def rounded(record, value, to):
    """A check of a recorded series, rounded to `to`."""
    return {"expr": "round(%s, %g)" % (record, to), "eval_time": None, "exp_samples": [{"labels": "{}", "value": value}]}

def slo_case(name, series, checks, at_time=None, records=()):
    tests.append({"name": name, "interval": "1m", "input_series": series, "alert_rule_test": checks,
                  "promql_expr_test": [dict(r, eval_time=at_time) for r in records]})

SLO = "seedscaler:shoot_scheduling_"
FAST, SLOW = "ShootSchedulingBudgetBurnFast", "ShootSchedulingBudgetBurnSlow"

# Two sets' seeds take 20 shoots a minute between them, 6 of them late: 30% of the shoots
# wait longer than 60 s, 30 times the 1% the objective allows.
slo_case("a fast burn pages, and opens a ticket once it lasts",
         waits([(70, 10, 4)]) + waits([(70, 10, 2)], set_="", region="us-east-1"),
         [at("70m", FAST, alert(FAST, {}, "30")), at("70m", SLOW, alert(SLOW, {}, "30"))],
         "70m", [rounded(SLO + "objective:ratio", 0.99, 0.01),
                 rounded(SLO + "waits:rate5m", round(20 / 60, 4), 0.0001),
                 rounded(SLO + "sli:ratio_rate5m", 0.7, 0.001),
                 rounded(SLO + "sli:ratio_rate1h", 0.7, 0.001),
                 rounded(SLO + "burn_rate:ratio_rate1h", 30, 0.1),
                 rounded(SLO + "burn_rate:ratio_rate1d", 30, 0.1)])
# Each pair of windows pages on its own: a steep burn of 25 minutes after five healthy
# hours through the hour's (40% late in 25 of the 59 minutes between the hour's first and
# last sample: a burn rate of 16.95), a burn of 10 through the six hours'.
slo_case("a short steep burn pages through the hour's window",
         waits([(300, 20, 0), (25, 20, 8)]),
         [at("325m", FAST, alert(FAST, {}, "16.95"))],
         "325m", [rounded(SLO + "burn_rate:ratio_rate6h", 3.1, 0.1)])
slo_case("a lasting burn below 14.4 pages through the six hours' window",
         waits([(130, 20, 2)]),
         [at("130m", FAST, alert(FAST, {}, "10"))],
         "130m", [rounded(SLO + "burn_rate:ratio_rate1h", 10, 0.1)])
# 5% late: the budget burns 5 times too fast, below both paging rates.
slo_case("a slow burn opens a ticket and pages nobody",
         waits([(130, 20, 1)]),
         [at("130m", FAST), at("130m", SLOW, alert(SLOW, {}, "5"))])
# 2% late: only the 3d and 6h windows' rate of 1 is crossed.
slo_case("a burn only the three days' window sees opens a ticket",
         waits([(130, 20, 0.4)]),
         [at("130m", FAST), at("130m", SLOW, alert(SLOW, {}, "2"))])
# 0.5% late: half the budget spent.
slo_case("a garden within its objective fires nothing and has half its budget left",
         waits([(130, 20, 0.1)]),
         [at("130m", FAST), at("130m", SLOW)],
         "130m", [rounded(SLO + "sli:ratio_rate28d", 0.995, 0.001),
                  rounded(SLO + "error_budget_remaining:ratio_rate28d", 0.5, 0.01)])
# 40% late for an hour, then none for half an hour: the hour still burns 20 times too fast,
# but the short windows say the burn stopped, so the page resolves; the ticket stays.
slo_case("the page resolves once the burn stops, the ticket stays",
         waits([(60, 20, 8), (30, 20, 0)]),
         [at("60m", FAST, alert(FAST, {}, "40")), at("90m", FAST), at("90m", SLOW, alert(SLOW, {}, "26.67"))],
         "90m", [rounded(SLO + "burn_rate:ratio_rate1h", 20, 1),
                 rounded(SLO + "burn_rate:ratio_rate30m", 0, 0.1)])

# --- Recording rules ---------------------------------------------------------------------

DEMAND = "managedseedset:seedscaler_demand_shoots:sum"
demand = lambda ns, set_, value: {"labels": '%s{managedseedset="%s",namespace="%s"}' % (DEMAND, set_, ns), "value": value}
tests.append({"name": "a set's demand is the shoots on its seeds plus its pending shoots, once with two replicas",
              "interval": "1m",
              "input_series": info("gcp-ew1-0", "gcp", "europe-west1", managedseedset="demo") +
                              info("gcp-ew1-1", "gcp", "europe-west1", managedseedset="demo") +
                              info("soil", "gcp", "europe-west1") +
                              exporter("garden_seed_usage", {"name": "gcp-ew1-0", "resource": "shoots"}, "30x30") +
                              exporter("garden_seed_usage", {"name": "gcp-ew1-1", "resource": "shoots"}, "12x30") +
                              exporter("garden_seed_usage", {"name": "soil", "resource": "shoots"}, "99x30") +
                              leader("scheduler", "seedscaler_scheduler_pending_shoots", {"namespace": "garden", "managedseedset": "demo"}, "5x30") +
                              leader("scheduler", "seedscaler_scheduler_pending_shoots", {"namespace": "garden", "managedseedset": "new"}, "3x30"),
              "alert_rule_test": [],
              "promql_expr_test": [{"expr": DEMAND, "eval_time": "10m",
                                    "exp_samples": [demand("garden", "demo", 47), demand("garden", "new", 3)]}]})

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
