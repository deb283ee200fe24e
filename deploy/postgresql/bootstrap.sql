-- RideBeacon on PostgreSQL: one login role that owns one schema in one database, and nothing
-- else. Run as a superuser (deploy/postgresql/bootstrap.sh):
--   psql -v app_password="$PASSWORD" [-v app_role=ridebeacon] [-v app_database=ridebeacon] -f bootstrap.sql
-- The servers create and migrate their tables in that schema at start (safe from several
-- servers at once), so the role needs CREATE there; it gets no other database, no public
-- schema, no superuser, role or database creation, and a connection cap (each server keeps
-- 9 connections; 20 servers plus admin commands fit in 200).
\set ON_ERROR_STOP 1
\if :{?app_role} \else \set app_role ridebeacon \endif
\if :{?app_database} \else \set app_database ridebeacon \endif

SELECT format('CREATE ROLE %I LOGIN', :'app_role')
    WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_role') \gexec
ALTER ROLE :"app_role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    NOINHERIT CONNECTION LIMIT 200 PASSWORD :'app_password';

SELECT format('CREATE DATABASE %I ENCODING ''UTF8'' TEMPLATE template0', :'app_database')
    WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'app_database') \gexec
-- Nobody but the app (and superusers) may even connect.
REVOKE ALL ON DATABASE :"app_database" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"app_database" TO :"app_role";

\connect :"app_database"
REVOKE ALL ON SCHEMA public FROM PUBLIC;
CREATE SCHEMA IF NOT EXISTS :"app_role" AUTHORIZATION :"app_role";
ALTER ROLE :"app_role" IN DATABASE :"app_database" SET search_path = :"app_role";
-- A statement that hangs holds locks other servers wait on; the servers give up after 5 s anyway.
ALTER ROLE :"app_role" IN DATABASE :"app_database" SET statement_timeout = '10s';
ALTER ROLE :"app_role" IN DATABASE :"app_database" SET idle_in_transaction_session_timeout = '30s';
