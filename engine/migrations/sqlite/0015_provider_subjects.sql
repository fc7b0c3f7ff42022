-- People who sign in through an OpenID provider, found by who the provider
-- says they are: its issuer and their subject there, separated by a space.

alter table people add column oidc_subject text;

create unique index people_by_oidc_subject on people (oidc_subject) where oidc_subject is not null;
