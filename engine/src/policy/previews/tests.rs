use rstest::rstest;

use super::*;
use crate::policy::PolicyConfig;

fn policy(yaml: &str) -> Result<Policy, PolicyError> {
    let config: PolicyConfig = serde_yaml::from_str(yaml).unwrap();
    config.compile("airlock.yaml", "sources.fs")
}

#[test]
fn known_tools_are_previewed_without_being_named() {
    let policy = policy("{}").unwrap();
    assert_eq!(
        policy.preview_plan("write_file"),
        Some(PreviewPlan::FileWrite {
            path: "/path".into(),
            content: "/content".into()
        })
    );
    assert_eq!(
        policy.preview_plan("Write"),
        Some(PreviewPlan::FileWrite {
            path: "/file_path".into(),
            content: "/content".into()
        })
    );
    assert_eq!(
        policy.preview_plan("edit_file"),
        Some(PreviewPlan::DryRun {
            arg: "dryRun".into()
        })
    );
    assert!(matches!(
        policy.preview_plan("Bash"),
        Some(PreviewPlan::Command { .. })
    ));
    assert_eq!(policy.preview_plan("send_email"), None);
}

#[test]
fn a_block_maps_its_own_tools_and_may_turn_a_known_one_off() {
    let policy = policy(
        "previews:
           - {tool: write_file, kind: none}
           - {tool: save_*, kind: file_write, path: /target, content: /text}
           - {tool: patch, kind: dry_run, arg: /preview}
           - {tool: shell, kind: command, command: /line, cwd: /dir, folder: /srv/app}",
    )
    .unwrap();
    assert_eq!(policy.preview_plan("write_file"), None);
    assert_eq!(
        policy.preview_plan("save_note"),
        Some(PreviewPlan::FileWrite {
            path: "/target".into(),
            content: "/text".into()
        })
    );
    assert_eq!(
        policy.preview_plan("patch"),
        Some(PreviewPlan::DryRun {
            arg: "preview".into()
        })
    );
    assert_eq!(
        policy.preview_plan("shell"),
        Some(PreviewPlan::Command {
            command: "/line".into(),
            cwd: Some("/dir".into()),
            folder: Some("/srv/app".into())
        })
    );
    assert!(policy.preview_plan("edit_file").is_some());
}

#[rstest]
#[case::foreign_key(
    "{tool: x, kind: command, path: /p}",
    "sources.fs.previews[0].path: a `command` preview has no `path`"
)]
#[case::not_a_pointer(
    "{tool: x, kind: file_write, path: p}",
    "sources.fs.previews[0].path: `p` is not a JSON pointer (it starts with /)"
)]
#[case::nested_switch(
    "{tool: x, kind: dry_run, arg: /a/b}",
    "sources.fs.previews[0].arg: `/a/b`: a dry run's switch is a top-level argument, like /dryRun"
)]
#[case::relative_folder(
    "{tool: x, kind: command, folder: srv}",
    "sources.fs.previews[0].folder: `srv` is not an absolute path"
)]
#[case::bad_glob("{tool: 'x[', kind: none}", "sources.fs.previews[0].tool: bad glob")]
fn a_preview_that_cannot_be_used_says_where_and_why(#[case] entry: &str, #[case] said: &str) {
    let refused = policy(&format!("previews: [{entry}]")).unwrap_err();
    assert!(
        refused
            .to_string()
            .starts_with(&format!("airlock.yaml: {said}")),
        "{refused}"
    );
}

#[test]
fn an_unknown_kind_is_refused_when_read() {
    let read: Result<PolicyConfig, _> = serde_yaml::from_str("previews: [{tool: x, kind: guess}]");
    assert!(read
        .unwrap_err()
        .to_string()
        .contains("unknown variant `guess`"));
}
