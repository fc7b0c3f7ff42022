// A real SMTP server on loopback for tests: smtp-server (the SMTP server
// of the nodemailer project) with STARTTLS, with a login when asked for.
//
//   node smtp-receiver.mjs KEY.pem CERT.pem [USER PASSWORD]
//   node smtp-receiver.mjs - -              (plain SMTP, no login)
//
// Prints "listening on PORT", then one JSON line per message received:
// its envelope, whether the session was encrypted and who logged in, and
// the message as mailparser reads it (subject, text, html).
import { readFileSync } from 'node:fs';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

const [key, cert, user, password] = process.argv.slice(2);
const tls = key === '-' ? { disabledCommands: ['STARTTLS'] } : { key: readFileSync(key), cert: readFileSync(cert) };
const server = new SMTPServer({
  ...tls,
  authOptional: !user,
  // A login only over TLS, as real servers ask.
  allowInsecureAuth: false,
  onAuth(auth, session, done) {
    if (auth.username === user && auth.password === password) return done(null, { user });
    done(new Error('Invalid username or password'));
  },
  async onData(stream, session, done) {
    try {
      const mail = await simpleParser(stream);
      console.log(JSON.stringify({
        from: session.envelope.mailFrom.address,
        to: session.envelope.rcptTo.map((r) => r.address),
        secure: session.secure,
        user: session.user ?? null,
        subject: mail.subject,
        message_id: mail.messageId ?? null,
        text: mail.text,
        html: mail.html,
      }));
      done();
    } catch (e) {
      done(e);
    }
  },
});
server.listen(0, '127.0.0.1', () => console.log(`listening on ${server.server.address().port}`));
