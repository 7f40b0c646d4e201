# Remote state with locking, shared by every job of the pipeline. The values
# that differ per environment (bucket, key, region) are given at init:
#   terraform init -input=false -backend-config=backend.hcl
# The S3 backend locks with a lock file next to the state (use_lockfile,
# Terraform 1.10 and later); any backend with locking works the same way.

terraform {
  backend "s3" {
    use_lockfile = true
  }
}
