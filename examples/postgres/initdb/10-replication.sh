# Sourced by the postgres image's entrypoint when it creates the primary's data
# directory: let the standbys connect for replication with the password.
echo "host replication all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
