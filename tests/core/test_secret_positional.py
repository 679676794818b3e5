"""Passwords given by place or by a program's own keyword (``core.secret_positional``), and the option
rules' new families (Samba's ``user%PW``, lftp's ``user,PW``, openssl's ``-k``, psexec's and kin's ``-p``).
Each positive case came out readable before: the model, the store and the logs got the password.  Each
negative one is a look-alike from ordinary commands, code or prose that must stay as it is."""

from __future__ import annotations

import pytest

from agent_tui.core.redact import Redactor
from agent_tui.core.secrets import find_secrets

PW = "[REDACTED:password]"


def redacted(text: str) -> str:
    """``text`` through a fresh Redactor, after checking that the gated scan finds what the full one does."""
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    return Redactor()(text)


@pytest.mark.parametrize("text, expected", [
    # SQL
    ("CREATE USER app IDENTIFIED BY 'Sup3rS3cret';", f"CREATE USER app IDENTIFIED BY '{PW}';"),
    ("ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY 'r00tPw!';",
     f"ALTER USER 'root'@'localhost' IDENTIFIED WITH mysql_native_password BY '{PW}';"),
    ("GRANT ALL ON *.* TO 'bob'@'%' IDENTIFIED BY 'b0bPass';", f"GRANT ALL ON *.* TO 'bob'@'%' IDENTIFIED BY '{PW}';"),
    ("create user scott identified by tiger99;", f"create user scott identified by {PW};"),
    ("CREATE ROLE app WITH LOGIN PASSWORD 'Sup3rS3cret';", f"CREATE ROLE app WITH LOGIN PASSWORD '{PW}';"),
    ("ALTER USER postgres PASSWORD 'pgAdm1n';", f"ALTER USER postgres PASSWORD '{PW}';"),
    ("CREATE LOGIN app WITH PASSWORD = N'Str0ng!Pass';", f"CREATE LOGIN app WITH PASSWORD = N'{PW}';"),
    ("SET PASSWORD FOR 'bob'@'%' = PASSWORD('b0bPass');", f"SET PASSWORD FOR 'bob'@'%' = PASSWORD('{PW}');"),
    ('psql -c "ALTER USER app WITH PASSWORD \'appPw42\';"', f'psql -c "ALTER USER app WITH PASSWORD \'{PW}\';"'),
    ('{"command": "psql -c \\"CREATE USER a PASSWORD \'aPw12345\'\\""}',
     f'{{"command": "psql -c \\"CREATE USER a PASSWORD \'{PW}\'\\""}}'),
    # a place among the arguments
    ("htpasswd -nb admin Sup3rS3cret", f"htpasswd -nb admin {PW}"),
    ("htpasswd -bc /etc/nginx/.htpasswd admin 'my pass 1'", f"htpasswd -bc /etc/nginx/.htpasswd admin '{PW}'"),
    ("sudo htpasswd -B -b -C 12 .htpasswd admin hunter22", f"sudo htpasswd -B -b -C 12 .htpasswd admin {PW}"),
    ("mosquitto_passwd -b passwd.txt sensor s3ns0rPw", f"mosquitto_passwd -b passwd.txt sensor {PW}"),
    ("rabbitmqctl add_user admin Sup3rS3cret && rabbitmqctl set_user_tags admin administrator",
     f"rabbitmqctl add_user admin {PW} && rabbitmqctl set_user_tags admin administrator"),
    ("rabbitmqctl -n rabbit@host change_password guest n3wGuest", f"rabbitmqctl -n rabbit@host change_password guest {PW}"),
    ("vault login s.Xk39sdk29sLqAbC", f"vault login {PW}"),
    ("vault login -no-print Xk39sdk29sLqAbC", f"vault login -no-print {PW}"),
    ("net use Z: \\\\srv\\share Sup3rS3cret /user:CORP\\alice", f"net use Z: \\\\srv\\share {PW} /user:CORP\\alice"),
    ("C:\\> net user alice Welc0me1 /add", f"C:\\> net user alice {PW} /add"),
    # Oracle and impacket
    ("sqlplus scott/tiger99@orcl @script.sql", f"sqlplus scott/{PW}@orcl @script.sql"),
    ("sqlplus -s system/Manager1", f"sqlplus -s system/{PW}"),
    ("expdp system/Sup3rS3cret@db schemas=hr", f"expdp system/{PW}@db schemas=hr"),
    ("sqlldr userid=scott/tiger99 control=load.ctl", f"sqlldr userid=scott/{PW} control=load.ctl"),
    ("SQL> CONNECT hr/hrPass1@pdb1", f"SQL> CONNECT hr/{PW}@pdb1"),
    ("psexec.py CORP/alice:Sup3rS3cret@10.0.0.5 cmd", f"psexec.py CORP/alice:{PW}@10.0.0.5 cmd"),
    ("impacket-secretsdump administrator:P4ssw0rd!@dc01.corp.local",
     f"impacket-secretsdump administrator:{PW}@dc01.corp.local"),
    # Windows options with a colon
    ("cmdkey /add:srv /user:alice /pass:Sup3rS3cret", f"cmdkey /add:srv /user:alice /pass:{PW}"),
    ("xfreerdp /v:host /u:alice /p:Sup3rS3cret /cert:ignore", f"xfreerdp /v:host /u:alice /p:{PW} /cert:ignore"),
    ("schtasks /create /ru alice /password:Sup3rS3cret", f"schtasks /create /ru alice /password:{PW}"),
    # echoed into a program that reads it from its input
    ("echo Sup3rS3cret | docker login -u me --password-stdin", f"echo {PW} | docker login -u me --password-stdin"),
    ('echo "hunter22" | sudo -S apt-get update', f'echo "{PW}" | sudo -S apt-get update'),
    ("printf 'hunter22\\n' | sudo -u root -kS true", f"printf '{PW}\\n' | sudo -u root -kS true"),
    ("echo 'alice:Welc0me1' | chpasswd", f"echo 'alice:{PW}' | chpasswd"),
    ("echo Welc0me1 | passwd --stdin alice", f"echo {PW} | passwd --stdin alice"),
    # the option rules' new families
    ("smbclient //srv/share -U alice%Sup3rS3cret -c ls", f"smbclient //srv/share -U alice%{PW} -c ls"),
    ("smbclient //srv/share --user='CORP\\alice%Sup3rS3cret'", f"smbclient //srv/share --user='CORP\\alice%{PW}'"),
    ("net ads join -U administrator%Adm1nPw", f"net ads join -U administrator%{PW}"),
    ("lftp -u alice,Sup3rS3cret ftp.example.com", f"lftp -u alice,{PW} ftp.example.com"),
    ("openssl enc -aes-256-cbc -k Sup3rS3cret -in a -out b", f"openssl enc -aes-256-cbc -k {PW} -in a -out b"),
    ("psexec \\\\srv -u alice -p Sup3rS3cret cmd", f"psexec \\\\srv -u alice -p {PW} cmd"),
    ("nxc smb 10.0.0.1 -u alice -p Sup3rS3cret", f"nxc smb 10.0.0.1 -u alice -p {PW}"),
    ("evil-winrm -i 10.0.0.5 -u admin -p 'P4ss w0rd'", f"evil-winrm -i 10.0.0.5 -u admin -p '{PW}'"),
    # found by the review of the first version
    ("echo 'bob:Secr3t!' | sudo chpasswd", f"echo 'bob:{PW}' | sudo chpasswd"),
    ("echo Secr3t! | sudo passwd --stdin bob", f"echo {PW} | sudo passwd --stdin bob"),
    ('sudo -S apt update <<< "hunter22"', f'sudo -S apt update <<< "{PW}"'),
    ('docker login -u me --password-stdin <<< "Sup3rS3cret"', f'docker login -u me --password-stdin <<< "{PW}"'),
    ('xfreerdp /v:h /p:"P@ss w0rd" /u:a', f'xfreerdp /v:h /p:"{PW}" /u:a'),
    ("xfreerdp /p:Pa/ss99", f"xfreerdp /p:{PW}"),
    ("cmd.exe /c net user bob Welc0me1 /add", f"cmd.exe /c net user bob {PW} /add"),
    ("printf '%s\\n' 'hunter22' | sudo -S true", f"printf '%s\\n' '{PW}' | sudo -S true"),
    ("sqlplus64 scott/tiger99@db", f"sqlplus64 scott/{PW}@db"),
    ("GRANT ALL ON db.* TO bob IDENTIFIED BY Sup3r99;", f"GRANT ALL ON db.* TO bob IDENTIFIED BY {PW};"),
])
def test_a_password_given_by_place_or_keyword_is_masked(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    # SQL without a literal, with a placeholder, or prose
    "cursor.execute(\"CREATE USER %s IDENTIFIED BY %s\", (user, pw))",
    "ALTER USER postgres PASSWORD NULL;",
    "CREATE USER app WITH PASSWORD '<password>';",
    "CREATE USER app WITH PASSWORD 'password';",
    "CREATE USER app WITH PASSWORD '${DB_PASSWORD}';",
    "create user app identified by RANDOM PASSWORD;",
    "Load and return a dynamic library identified by 'name'.",
    "mysql> SET PASSWORD = PASSWORD(@pw);",
    # no password given by place
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "htpasswd -nb admin $PASSWORD",
    "htpasswd -nbB admin \"$(cat pw.txt)\"",
    "rabbitmqctl list_users",
    "rabbitmqctl add_user admin",
    "vault login",
    "vault login -method=userpass username=alice",
    "vault login -method=github token=$GITHUB_TOKEN",
    "net use Z: \\\\srv\\share * /user:alice",
    "net user alice /domain",
    "the net user base grows quickly",
    "sqlplus / as sysdba",
    "sqlplus -s /nolog",
    "sqlplus scott@orcl",
    "a connect client/server model",
    "psexec.py -k -no-pass CORP/alice@dc01",
    "msbuild /p:Configuration=Release /t:Build",
    "Use the /password: option to set it.",
    "See https://example.com/pass:word",
    # input that is not a password
    "echo hello | sudo tee /etc/hosts",
    "echo 'deb http://x stable main' | sudo tee -a /etc/apt/sources.list",
    "echo yes | sudo pacman -Syu",
    "printf 'abcdef' | sudo -u root tee file",
    "echo $PASSWORD | docker login --password-stdin",
    "echo alice | chpasswd",
    "cat pw.txt | docker login --password-stdin",
    # options of these programs that are not passwords
    "openssl enc -d -aes-256-cbc -kfile key.txt -in a",
    "smbclient -L //srv -U alice",
    "lftp -u alice ftp.example.com",
    "hydra -l admin -P rockyou.txt ssh://host",
    "git log --pretty=format:'%h %s' | head",
    # prose and look-alikes the review found
    "run vault login again",
    "Error: vault login failed",
    "You must vault login first",
    "Sent to customers identified by email.",
    "allow tags to be identified by mark labels",
    "ncrack -p ssh,ftp 10.0.0.1",
    "echo hello world | sudo tee x",
    'cat <<< "$PW" | sudo -S true',
    "grep foo <<< 'some text'",
    "msbuild /p:OutDir=bin/x",
])
def test_look_alikes_stay_readable(text: str) -> None:
    assert redacted(text) == text


@pytest.mark.parametrize("text, found", [
    pytest.param("'net use " * 50_000, [], id="net-after-quotes"),
    pytest.param("rabbitmqctl add_user " * 50_000, [("password", 8)], id="rabbitmq-on-one-line"),
    pytest.param("vault login " * 50_000, [], id="vault-on-one-line"),
    pytest.param("psexec.py " * 50_000, [], id="impacket-on-one-line"),
    pytest.param("echo abcd | sudo " * 50_000, [], id="echo-sudo"),
    pytest.param("echo abcdef | " + "passwd " * 50_000, [], id="echo-passwd"),
    pytest.param("user 'a'" + "x" * 300_000, [], id="sql-user-run"),
    pytest.param("to a identified by " * 30_000, [], id="identified-repeated"),
    pytest.param("/p:" * 100_000, [], id="slash-options"),
    pytest.param("sqlplus -s " * 50_000, [], id="sqlplus-options"),
    pytest.param("smbclient -U " * 50_000, [], id="smb-options"),
    pytest.param("echo abcdefg | sudo " + "-u x " * 50_000, [], id="sudo-options"),
    pytest.param("sudo -S x <<< " * 50_000, [("password", 4)] * 49_999, id="here-strings"),
    pytest.param("<<<" * 100_000, [], id="here-string-marks"),
    pytest.param("echo 'a:b' | " + "sudo " * 50_000 + "chpasswd", [], id="sudo-chain"),
])
def test_input_made_to_backtrack_is_scanned_in_one_pass(text: str, found: list[tuple[str, int]]) -> None:
    """Each is read in time linear in its length (a rule that read a command's words again for every
    program on the line would hang here; speed is measured in ``scripts/bench_redact.py``)."""
    assert [(f.kind, f.end - f.start) for f in find_secrets(text)] == found
    assert find_secrets(text, prefilter=False) == find_secrets(text)
