/** Input and payload of `createNote`. */
import { Field, InputType, ObjectType } from 'type-graphql';
import { NoteType } from './content.js';
import { CLIENT_MUTATION_ID, ERRORS } from './mutation-fields.js';
import { type NoteableRef, NoteableIdScalar } from './noteable-id.js';

@InputType('CreateNoteInput')
export class CreateNoteInput {
  @Field(() => NoteableIdScalar, { description: 'What the note is written on (its `id`).' })
  noteableId!: NoteableRef;
  @Field(() => String, { description: 'Markdown.' }) body!: string;
  @Field(() => String, CLIENT_MUTATION_ID) clientMutationId?: string | null;
}

@ObjectType('CreateNotePayload', { simpleResolvers: true })
export class CreateNotePayload {
  @Field(() => NoteType, { nullable: true }) note!: NoteType | null;
  @Field(() => [String], ERRORS) errors!: string[];
  @Field(() => String, CLIENT_MUTATION_ID) clientMutationId!: string | null;
}
