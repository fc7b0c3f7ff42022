-- A person's e-mail address, lowercase: how Slack's buttons find who pressed
-- them, and what an OpenID provider says it verified. One person per address.
alter table people add column email text;
create unique index people_by_email on people (email) where email is not null;
