# One policy for the `fs` source, written in Rego. The same policy in YAML
# and Cedar sits beside this file; docs/policy.md walks through it.
package airlock

deny contains "nothing is deleted in production" if {
	input.tool == "delete_file"
	startswith(input.arguments.path, "/prod/")
}

deny contains "no deploys out of hours" if {
	input.tool == "deploy"
	not working_hours
}

working_hours if {
	input.time.hour >= 8
	input.time.hour < 18
}

allow contains "read-only tools run" if input.read_only_hint

allow contains "ops write without asking" if {
	input.tool == "write_file"
	"ops" in input.principal.groups
}

decision := {"outcome": "deny", "reason": concat("; ", deny)} if count(deny) > 0

decision := {
	"outcome": "ask",
	"reason": "deploys take two people of release",
	"approvers": ["release"],
	"approvals_required": 2,
} if {
	count(deny) == 0
	input.tool == "deploy"
}

decision := {"outcome": "allow", "reason": concat("; ", allow)} if {
	count(deny) == 0
	input.tool != "deploy"
	count(allow) > 0
}
