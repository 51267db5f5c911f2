//! Terminal colour for human output.

use std::io::IsTerminal;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy)]
pub struct Style {
    on: bool,
}

impl Style {
    pub fn new(choice: ColorChoice) -> Style {
        let on = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Style { on }
    }

    fn paint(self, code: &str, s: &str) -> String {
        if self.on { format!("\x1b[{code}m{s}\x1b[0m") } else { s.to_owned() }
    }

    pub fn bold(self, s: &str) -> String {
        self.paint("1", s)
    }

    pub fn dim(self, s: &str) -> String {
        self.paint("2", s)
    }

    pub fn severity(self, severity: &str, s: &str) -> String {
        let code = match severity {
            "error" => "1;31",
            "warning" => "1;33",
            "information" => "1;36",
            _ => "1;34",
        };
        self.paint(code, s)
    }

    pub fn underline_color(self, severity: &str, s: &str) -> String {
        let code = match severity {
            "error" => "31",
            "warning" => "33",
            "information" => "36",
            _ => "34",
        };
        self.paint(code, s)
    }
}
