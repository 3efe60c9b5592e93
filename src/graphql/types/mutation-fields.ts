/** Field options every mutation input and payload shares (GitLab's descriptions). */

export const CLIENT_MUTATION_ID = {
  nullable: true,
  description: 'A unique identifier for the client performing the mutation.',
} as const;

export const ERRORS = {
  description:
    'Errors encountered during execution of the mutation (validation problems; the object is then null).',
} as const;

export const PROJECT_PATH = {
  description: 'Full path of the project (a numeric id or global id is accepted too).',
} as const;
