-- A case asks a question (its call is one) or decides a tool call. Both
-- can be of type `approval` (an agent may ask a person to approve an
-- artifact), so the case says which, and a response goes the right way.
alter table review_cases add column asks boolean not null default false;
update review_cases set asks = true where case_type = 'input';
