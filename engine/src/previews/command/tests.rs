use rstest::rstest;

use super::*;

/// Each step as `program arg arg [> file] then`, outside paths starred.
fn shown(preview: &CommandPreview) -> Vec<String> {
    let word = |w: &CommandWord| match w.outside {
        true => format!("*{}", w.text),
        false => w.text.clone(),
    };
    preview
        .steps
        .iter()
        .map(|s| {
            let mut parts = vec![s.program.clone()];
            parts.extend(s.arguments.iter().map(word));
            parts.extend(s.redirects.iter().map(|r| format!("[{}]", word(r))));
            parts.extend(s.then.clone());
            parts.join(" ")
        })
        .collect()
}

#[rstest]
#[case::plain("ls -la src", &["ls -la src"])]
#[case::quotes(r#"grep "two words" 'a b' c\ d"#, &["grep two words a b c d"])]
#[case::pipe_and_chain("cat a.txt | wc -l && echo done; rm -f x", &["cat a.txt |", "wc -l &&", "echo done ;", "rm -f x"])]
#[case::or_and_background("make || true & sleep 1", &["make ||", "true &", "sleep 1"])]
#[case::redirects("sort < in.txt > out.txt 2>> err.log", &["sort [< in.txt] [> out.txt] [2>> err.log]"])]
#[case::descriptor_copy("cmd 2>&1 | tee log", &["cmd [2> &1] |", "tee log"])]
#[case::newlines("echo a\necho b", &["echo a ;", "echo b"])]
#[case::escaped_quote_in_double(r#"echo "say \"hi\"""#, &[r#"echo say "hi""#])]
fn a_command_is_read_into_steps(#[case] line: &str, #[case] steps: &[&str]) {
    assert_eq!(shown(&read(line, Some("/srv"))), steps);
}

#[rstest]
#[case::inside_relative("rm drafts/plan.md", "rm drafts/plan.md")]
#[case::climbing("cat ../../etc/passwd", "cat *../../etc/passwd")]
#[case::climbing_back_in("cat a/../b.txt", "cat a/../b.txt")]
#[case::absolute_inside("cat /srv/notes.txt", "cat /srv/notes.txt")]
#[case::absolute_outside("cat /etc/passwd", "cat */etc/passwd")]
#[case::prefix_is_not_inside("cat /srvshop/x", "cat */srvshop/x")]
#[case::home("cp ~/.ssh/id_ed25519 .", "cp *~/.ssh/id_ed25519 .")]
#[case::option_value("tar --file=/tmp/x.tar -c .", "tar *--file=/tmp/x.tar -c .")]
#[case::redirect_target("echo x > /etc/hosts", "echo x [*> /etc/hosts]")]
#[case::dot_dot_alone("cd ..", "cd *..")]
fn paths_outside_the_folder_are_marked(#[case] line: &str, #[case] step: &str) {
    assert_eq!(shown(&read(line, Some("/srv/"))), [step]);
}

#[test]
fn without_a_folder_every_absolute_path_may_be_outside() {
    let preview = read("cat /srv/notes.txt notes.txt", None);
    assert_eq!(shown(&preview), ["cat */srv/notes.txt notes.txt"]);
    assert_eq!(preview.folder, None);
}

#[rstest]
#[case::nested("echo $(whoami)", "runs a nested command")]
#[case::backquotes("echo `whoami`", "runs a nested command")]
#[case::variables("rm -rf \"$HOME/x\"", "expands variables")]
#[case::patterns("rm *.log", "matches file names by pattern")]
#[case::unclosed("echo 'open", "a quote is not closed")]
#[case::sudo("sudo rm -rf /", "runs with another user's rights (sudo)")]
#[case::shell_text("bash -c 'rm -rf /'", "runs a command given as text (bash -c)")]
#[case::eval("eval \"$CMD\"", "runs commands given as text (eval)")]
#[case::assignment("PATH=/tmp ls", "sets PATH in the environment")]
#[case::heredoc("cat <<EOF", "reads a here-document")]
fn what_the_steps_cannot_show_is_said(#[case] line: &str, #[case] warning: &str) {
    let preview = read(line, Some("/srv"));
    assert!(
        preview.warnings.iter().any(|w| w.starts_with(warning)),
        "{line}: {:?}",
        preview.warnings
    );
}

#[test]
fn single_quotes_keep_dollars_and_say_nothing() {
    let preview = read("echo '$(not run) $HOME *'", Some("/srv"));
    assert_eq!(shown(&preview), ["echo $(not run) $HOME *"]);
    assert!(preview.warnings.is_empty(), "{:?}", preview.warnings);
}

#[test]
fn an_assignment_is_not_taken_for_the_program() {
    let preview = read("LANG=C sort x", Some("/srv"));
    assert_eq!(shown(&preview), ["sort x"]);
}

#[test]
fn an_empty_command_has_no_steps() {
    assert!(read("   ", None).steps.is_empty());
}
