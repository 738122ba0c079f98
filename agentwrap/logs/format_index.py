"""Which built-in diagnostic format reads which program: imported by every run, so it is data only."""

from __future__ import annotations

# Program (and format) name -> file stem, so a live run loads only its own format (all of them cost a
# run ~80 ms); tests/test_formats.py checks it against each file's `name` and `matches`.
PROGRAMS: dict[str, str] = {
    "ansible-lint": "ansible-lint", "bandit": "bandit", "black": "black", "brakeman": "brakeman", "buf": "buf",
    "protolint": "buf", "protoc": "buf", "cargo": "cargo", "rustc": "cargo", "cppcheck": "cppcheck",
    "credo": "credo", "mix": "credo", "elixir": "credo", "elixirc": "credo", "dotenv-linter": "dotenv-linter",
    "dotnet": "dotnet", "msbuild": "dotnet", "csc": "dotnet", "vbc": "dotnet", "MSBuild.exe": "dotnet",
    "eslint": "eslint", "standard": "eslint", "ts-standard": "eslint", "semistandard": "eslint", "gcc": "gcc",
    "cc": "gcc", "g++": "gcc", "c++": "gcc", "clang": "gcc", "clang++": "gcc", "go": "go", "golint": "go",
    "staticcheck": "go", "golangci-lint": "go", "gosec": "go", "go-consistent": "go", "revive": "go",
    "errcheck": "go", "hadolint": "hadolint", "hlint": "hlint", "ghc": "hlint", "stack": "hlint",
    "cabal": "hlint", "java": "java", "javac": "java", "mvn": "java", "mvnw": "java", "gradle": "java",
    "gradlew": "java", "kotlinc": "java", "kotlin": "java", "luacheck": "luacheck",
    "markdownlint": "markdownlint", "markdownlint-cli2": "markdownlint", "misspell": "misspell",
    "mypy": "mypy", "dmypy": "mypy", "php": "php", "phpstan": "php", "psalm": "php", "phpcs": "php",
    "puppet-lint": "puppet-lint", "python-lint": "python-lint", "flake8": "python-lint",
    "pycodestyle": "python-lint", "pep8": "python-lint", "pyflakes": "python-lint", "pylint": "python-lint",
    "pydocstyle": "python-lint", "isort": "python-lint", "rubocop": "rubocop", "standardrb": "rubocop",
    "erblint": "rubocop", "erb_lint": "rubocop", "erb-lint": "rubocop", "ruby-lint": "ruby-lint",
    "fasterer": "ruby-lint", "reek": "ruby-lint", "haml-lint": "ruby-lint", "slim-lint": "ruby-lint",
    "srb": "ruby-lint", "sorbet": "ruby-lint", "scala": "scala", "scalac": "scala", "sbt": "scala",
    "scalastyle": "scala", "scala-cli": "scala", "mill": "scala", "shellcheck": "shellcheck",
    "stylish": "stylish", "remark": "stylish", "remark-cli": "stylish", "stylelint": "stylish",
    "swift": "swift", "swiftc": "swift", "swiftlint": "swift", "xcodebuild": "swift", "tslint": "tslint",
    "typos": "typos", "yamllint": "yamllint",
}
