/** A push event's payload: what REST shows as `push_data` and the legacy `data` object. */
import { Field, Int, ObjectType } from 'type-graphql';
import { TimeScalar } from './scalars.js';
import type { PushAction, RefType } from '../../domain/vocabulary.js';
import { PushActionEnum, RefTypeEnum } from './enums.js';

@ObjectType('CommitAuthor', { simpleResolvers: true })
export class CommitAuthorType {
  @Field(() => String) name!: string;
  @Field(() => String) email!: string;
}

@ObjectType('Commit', { simpleResolvers: true })
export class CommitType {
  @Field(() => String, { description: 'SHA.' }) id!: string;
  @Field(() => String) message!: string;
  @Field(() => TimeScalar) timestamp!: number | string;
  @Field(() => String) url!: string;
  @Field(() => CommitAuthorType) author!: CommitAuthorType;
}

@ObjectType('Repository', { simpleResolvers: true })
export class RepositoryType {
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'SSH clone URL.' }) url!: string;
  @Field(() => String) description!: string;
  @Field(() => String) homepage!: string;
}

@ObjectType('PushData', { simpleResolvers: true })
export class PushDataType {
  __typename!: 'PushData';
  @Field(() => PushActionEnum) action!: PushAction;
  @Field(() => RefTypeEnum) refType!: RefType;
  @Field(() => String, {
    description: 'Qualified ref (`refs/heads/main`), as REST `data.ref`.',
    deprecationReason: 'Use `refType` and `refName`.',
  })
  ref!: string;
  @Field(() => String, { description: 'Short ref name (`main`), as REST `push_data.ref`.' })
  refName!: string;
  @Field(() => String, {
    description: 'SHA before the push (forty zeros for a new ref).',
    deprecationReason: 'Use `commitFrom` (null for a new ref).',
  })
  before!: string;
  @Field(() => String, {
    description: 'SHA after the push (forty zeros for a deleted ref).',
    deprecationReason: 'Use `commitTo` (null for a deleted ref).',
  })
  after!: string;
  @Field(() => String, { nullable: true }) commitFrom!: string | null;
  @Field(() => String, { nullable: true }) commitTo!: string | null;
  @Field(() => Int, { description: 'Number of commits pushed.' }) commitCount!: number;
  @Field(() => String, { nullable: true }) commitTitle!: string | null;
  @Field(() => [CommitType], { description: 'The newest commits (at most 20), oldest first.' })
  commits!: CommitType[];
  @Field(() => RepositoryType) repository!: RepositoryType;
  @Field(() => Int, { description: 'Who pushed, as REST `data.user_id`.' }) userId!: number;
  @Field(() => String, { description: 'Their name, as REST `data.user_name`.' }) userName!: string;
  @Field(() => Int, {
    nullable: true,
    description: 'Refs pushed at once (bulk pushes), as REST `push_data.ref_count`.',
  })
  refCount!: number | null;
}
